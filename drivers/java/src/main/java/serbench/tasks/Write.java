package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import serbench.Depth;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.paged.Index;
import serbench.paged.PageReader;
import serbench.paged.PageWriter;

/**
 * write: objects already in memory (loading is untimed) → encode → pages → fsync. With
 * `raw`, the write floor: the same without the encoding (PROTOCOL.md 5).
 */
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
        byte[] runStamp = params.runStamp();
        if (!method.writes()) {
            return floor(model, params.path("input"), output, pageSize, runStamp, reps);
        }
        Path input = params.path("input");
        Inputs.Objects<T> in = Inputs.objects(input, model);
        List<T> objects = in.objects();
        Checksum checksum = in.checksum();
        // nothing is cached before a write, so there is nothing to evict
        PageWriter.Counters c = reps.run(null, timer -> Tasks.writeFile(codec, method, model,
            objects, output, pageSize, runStamp, timer), PageWriter.Counters::equals);
        return result(reps, checksum, c);
    }

    /**
     * The write floor: the objects of another method's file (`input`, read before timing)
     * placed again exactly as that file has them, written and fsynced: a write without the
     * encoding. The checksum folds each object's bytes, as the raw read does.
     */
    private static ObjectNode floor(ModelType<?> model, Path input, Path output, int pageSize,
            byte[] runStamp, Repetitions reps) throws Exception {
        Stored stored = Stored.load(model, input, pageSize);
        PageWriter.Counters c = reps.run(null, timer -> stored.write(output, runStamp, timer),
            PageWriter.Counters::equals);
        return result(reps, stored.checksum(), c);
    }

    private static ObjectNode result(Repetitions reps, Checksum checksum,
            PageWriter.Counters c) {
        ObjectNode r = Tasks.result(reps, checksum);
        ObjectNode counters = r.putObject("counters");
        counters.put("objects", c.objects());
        counters.put("bytes", c.bytes());
        counters.put("pages", c.pages());
        counters.put("avg_object_bytes", (double) c.objectBytes() / Math.max(1, c.objects()));
        r.put("eviction", "none");
        return r;
    }

    /** A paged file's objects in memory, back to back, with their places. */
    private record Stored(Index index, byte[] bytes, int[] starts) {
        static Stored load(ModelType<?> model, Path base, int pageSize) throws Failure {
            PageReader.Buffer page = new PageReader.Buffer(false);
            try (PageReader reader = new PageReader(base, new Index.Expect(model.id, null,
                    pageSize), new IoTimer(), page)) {
                Index index = reader.index;
                int count = Math.toIntExact(index.count);
                int[] starts = new int[count + 1];
                for (int n = 0; n < count; n++) {
                    starts[n + 1] = Math.addExact(starts[n], index.length(n));
                }
                byte[] bytes = new byte[starts[count]];
                for (int n = 0; n < count; n++) {
                    ByteBuffer b = reader.object(n);
                    System.arraycopy(b.array(), index.offset(n), bytes, starts[n],
                        index.length(n));
                }
                return new Stored(index, bytes, starts);
            }
        }

        Checksum checksum() {
            Checksum checksum = new Checksum();
            for (int n = 0; n + 1 < starts.length; n++) {
                Hasher h = new Hasher();
                h.bytes(bytes, starts[n], starts[n + 1] - starts[n]);
                checksum.add(h.finish());
            }
            return checksum;
        }

        PageWriter.Counters write(Path base, byte[] runStamp, IoTimer timer) throws Exception {
            try (PageWriter w = new PageWriter(base, index.pageSize, timer)) {
                for (int n = 0; n + 1 < starts.length; n++) {
                    w.place(index.page(n), index.offset(n), bytes, starts[n],
                        starts[n + 1] - starts[n]);
                }
                return w.finish(index.model, index.method, Tasks.WRITER, runStamp);
            }
        }
    }
}
