package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import serbench.Bytes;
import serbench.Depth;
import serbench.Failure;
import serbench.Hasher;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;

/**
 * micro (PROTOCOL.md 5.4): in-memory encode then decode passes over the first n objects,
 * hot. `fresh` gives every object a new buffer; `reused` appends a pass's objects to one
 * buffer cleared per pass. A method reading direct pages gets the pass's bytes copied once
 * into a reused direct buffer, inside the encode time (its encoder builds off-heap too).
 */
public final class Micro implements Task {

    /** One pass's encoded objects: buffer k holds object k at [offs[k], ends[k]). */
    private static final class Pass {
        final Bytes[] buffers;
        final int[] offs;
        final int[] ends;
        final int[] directOffs;
        ByteBuffer direct;
        long encodeNs;
        long decodeNs;
        long bytes;
        int freshSize = 64;

        Pass(int n) {
            buffers = new Bytes[n];
            offs = new int[n];
            ends = new int[n];
            directOffs = new int[n];
        }
    }

    @Override
    public String id() {
        return "micro";
    }

    @Override
    public boolean writes() {
        return true;
    }

    @Override
    public <T> ObjectNode run(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Depth depth, Params params) throws Exception {
        Repetitions reps = new Repetitions(params);
        String buffer = params.text("buffer");
        if (!buffer.equals("fresh") && !buffer.equals("reused")) {
            throw Failure.badRequest("params.buffer must be fresh or reused, got " + buffer);
        }
        boolean fresh = buffer.equals("fresh");
        long iterations = params.u64("iterations");
        if (iterations == 0) {
            throw Failure.badRequest("params.iterations must be at least 1");
        }
        List<T> all = Inputs.objects(params.path("input"), model).objects();
        long n = params.u64("n");
        if (n > all.size()) {
            throw new Failure("out_of_range", "n = " + n + " asked, " + params.path("input")
                + " holds " + all.size() + " objects");
        }
        List<T> objects = all.subList(0, (int) n);
        Pass pass = new Pass((int) n);
        Bytes shared = new Bytes(1 << 16);
        Checksum first = reps.run(null, timer -> {
            long encodeNs = 0;
            long decodeNs = 0;
            Checksum once = null;
            for (long i = 0; i < iterations; i++) {
                Checksum c = pass(codec, method, objects, depth, fresh, shared, pass);
                encodeNs += pass.encodeNs;
                decodeNs += pass.decodeNs;
                if (once != null && !(once.count == c.count && once.sum == c.sum)) {
                    throw new Failure("checksum_mismatch", "pass " + i
                        + " decoded another set checksum than the first");
                }
                once = c;
            }
            reps.note("encode_ns", encodeNs);
            reps.note("decode_ns", decodeNs);
            return once;
        }, (a, b) -> a.count == b.count && a.sum == b.sum);
        ObjectNode r = reps.result();
        r.set("checksum", first.json());
        ObjectNode counters = r.putObject("counters");
        counters.put("objects", n);
        counters.put("iterations", iterations);
        counters.put("encoded_bytes", pass.bytes);
        counters.put("buffer", buffer);
        r.put("eviction", "none");
        return r;
    }

    private static <T> Checksum pass(Codec<T> codec, MethodSpec method, List<T> objects,
            Depth depth, boolean fresh, Bytes shared, Pass p) throws Exception {
        long t0 = System.nanoTime();
        encodeAll(codec, objects, fresh, shared, p);
        if (method.directPages()) {
            toDirect(p, fresh, shared);
        }
        long t1 = System.nanoTime();
        Checksum c = decodeAll(codec, method.directPages(), fresh, depth, p);
        long t2 = System.nanoTime();
        p.encodeNs = t1 - t0;
        p.decodeNs = t2 - t1;
        long bytes = 0;
        for (int k = 0; k < p.ends.length; k++) {
            bytes += p.ends[k] - p.offs[k];
        }
        p.bytes = bytes;
        return c;
    }

    /*
     * Encode and decode are separate methods, each calling a small per-object method, so
     * each side gets its own JIT compilation and type profile: a loop method called only
     * iterations x repetitions times (a few hundred) otherwise runs in profiled C1 code
     * or its OSR version long after the per-object code is hot, and one side's profile
     * cannot shape the other's inlining.
     */

    private static <T> void encodeAll(Codec<T> codec, List<T> objects, boolean fresh,
            Bytes shared, Pass p) throws Exception {
        shared.length = 0;
        for (int k = 0; k < objects.size(); k++) {
            // fresh: a new buffer as large as the previous object, so the encoder does not
            // regrow it (copying) two or three times per object from a too small default
            Bytes out = fresh ? new Bytes(p.freshSize) : shared;
            p.offs[k] = out.length;
            encodeOne(codec, objects.get(k), out);
            p.ends[k] = out.length;
            p.buffers[k] = out;
            if (fresh) {
                p.freshSize = Math.max(64, out.length);
            }
        }
    }

    private static <T> void encodeOne(Codec<T> codec, T value, Bytes out) throws Exception {
        codec.encode(value, out);
    }

    private static <T> Checksum decodeAll(Codec<T> codec, boolean direct, boolean fresh,
            Depth depth, Pass p) throws Exception {
        Checksum c = new Checksum();
        // one view of the shared buffer per pass; a fresh buffer needs its own view
        ByteBuffer page = direct ? p.direct : fresh || p.ends.length == 0 ? null
            : ByteBuffer.wrap(p.buffers[0].array);
        for (int k = 0; k < p.ends.length; k++) {
            ByteBuffer at = page != null ? page : ByteBuffer.wrap(p.buffers[k].array);
            int off = direct ? p.directOffs[k] : p.offs[k];
            c.add(decodeOne(codec, at, off, p.ends[k] - p.offs[k], depth));
        }
        return c;
    }

    private static <T> long decodeOne(Codec<T> codec, ByteBuffer page, int off, int len,
            Depth depth) throws Exception {
        Hasher h = new Hasher();
        codec.fold(page, off, len, depth, h);
        return h.finish();
    }

    private static void toDirect(Pass p, boolean fresh, Bytes shared) {
        int total = 0;
        for (int k = 0; k < p.ends.length; k++) {
            total += p.ends[k] - p.offs[k];
        }
        if (p.direct == null || p.direct.capacity() < total) {
            p.direct = ByteBuffer.allocateDirect(Math.max(total, 64))
                .order(ByteOrder.nativeOrder());
        }
        if (!fresh) {
            p.direct.put(0, shared.array, 0, shared.length);
            System.arraycopy(p.offs, 0, p.directOffs, 0, p.offs.length);
            return;
        }
        int at = 0;
        for (int k = 0; k < p.ends.length; k++) {
            int len = p.ends[k] - p.offs[k];
            p.direct.put(at, p.buffers[k].array, p.offs[k], len);
            p.directOffs[k] = at;
            at += len;
        }
    }
}
