package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import serbench.Depth;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.model.ModelType;
import serbench.paged.PageWriter;

/** write: objects already in memory (loading is untimed) → encode → pages → fsync. */
public final class Write implements Task {
    @Override
    public String id() {
        return "write";
    }

    @Override
    public boolean reads() {
        return false;
    }

    @Override
    public boolean writes() {
        return true;
    }

    @Override
    public <T> ObjectNode run(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Depth depth, Params params) throws Exception {
        Repetitions reps = new Repetitions(params);
        Path output = params.path("output");
        Integer p = params.pageSize();
        int pageSize = p == null ? Tasks.DEFAULT_PAGE_SIZE : p;
        List<T> objects = Json.load(params.path("input"), model);
        Checksum checksum = new Checksum();
        objects.forEach(o -> checksum.add(model.hash(o)));
        // nothing is cached before a write, so there is nothing to evict
        PageWriter.Counters c = reps.run(null, timer -> Tasks.writeFile(codec, method, model,
            objects, output, pageSize, timer), PageWriter.Counters::equals);
        ObjectNode r = Tasks.result(reps, checksum);
        ObjectNode counters = r.putObject("counters");
        counters.put("objects", c.objects());
        counters.put("bytes", c.bytes());
        counters.put("pages", c.pages());
        counters.put("avg_object_bytes", (double) c.objectBytes() / Math.max(1, c.objects()));
        r.put("eviction", "none");
        return r;
    }
}
