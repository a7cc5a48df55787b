package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import serbench.Depth;
import serbench.Failure;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.paged.PageReader;
import serbench.paged.PageWriter;

/** What several tasks share: writing a paged file, a read's result, the harness's id list. */
public final class Tasks {
    private Tasks() {}

    /** The language id this driver writes into index headers. */
    public static final String WRITER = "java";
    public static final int DEFAULT_PAGE_SIZE = 262_144;

    /** Writes `objects` as the paged file `base`, stamped with the run writing it. */
    public static <T> PageWriter.Counters writeFile(Codec<T> codec, MethodSpec method,
            ModelType<T> model, List<T> objects, Path base, int pageSize, byte[] runStamp,
            IoTimer timer) throws Exception {
        try (PageWriter w = new PageWriter(base, pageSize, timer)) {
            for (T object : objects) {
                w.push(out -> codec.encode(object, out));
            }
            return w.finish(model.id, method.id(), WRITER, runStamp);
        }
    }

    /** Objects that come one at a time (from a file larger than memory). */
    @FunctionalInterface
    public interface Source<T> {
        void each(Json.Sink<T, Exception> sink) throws Exception;
    }

    /** `writeFile` of objects held one at a time, untimed (the `encode` operation). */
    public static <T> PageWriter.Counters writeFile(Codec<T> codec, MethodSpec method,
            ModelType<T> model, Source<T> objects, Path base, int pageSize, byte[] runStamp,
            IoTimer timer) throws Exception {
        try (PageWriter w = new PageWriter(base, pageSize, timer)) {
            objects.each(object -> w.push(out -> codec.encode(object, out)));
            return w.finish(model.id, method.id(), WRITER, runStamp);
        }
    }

    /** A read of `sel` (read_seq, read_rand): its samples, checksum, objects and pages. */
    static <T> ObjectNode read(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Depth depth, Params params, Repetitions reps, Path base, Reads.Selection sel)
            throws Exception {
        Integer pageSize = params.pageSize();
        PageReader.Buffer page = new PageReader.Buffer(method.directPages());
        Reads.Outcome o = reps.run(base, timer -> Reads.read(codec, method, model, base, sel,
            depth, pageSize, page, timer), Reads.Outcome::same);
        ObjectNode r = result(reps, o.checksum());
        ObjectNode counters = r.putObject("counters");
        counters.put("objects", o.count());
        counters.put("pages_read", o.pagesRead());
        r.put("eviction", reps.eviction());
        return r;
    }

    static ObjectNode result(Repetitions reps, Checksum checksum) {
        ObjectNode r = reps.result();
        r.set("checksum", checksum.json());
        return r;
    }

    /** The first n ids of the file (untimed: the list is the harness's, not the read's work). */
    static long[] readIds(Path path, long n) throws Failure {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (IOException e) {
            throw Failure.io(path, e);
        }
        long held = bytes.length / 8;
        if (held < n) {
            throw Failure.badRequest(path + ": holds " + held + " ids, n = " + n + " asked");
        }
        long[] ids = new long[(int) n];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(ids);
        return ids;
    }
}
