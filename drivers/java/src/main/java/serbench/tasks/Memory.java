package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import serbench.Depth;
import serbench.Failure;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.paged.Index;
import serbench.paged.PageReader;

/**
 * memory (PROTOCOL.md 5.3): the heap n materialized objects retain. The JVM has no
 * allocator to count, so the live heap is the heap used after System.gc(), repeated until it
 * stops shrinking (README: memory), read before opening the file and after it is closed with
 * the n objects kept in an array sized up front (its bytes included). Only the
 * materialization is timed; the checksum of the kept objects is folded afterwards.
 */
public final class Memory implements Task {

    public static final String ACCOUNTING = "heap_after_gc";
    private static final MemoryMXBean HEAP = ManagementFactory.getMemoryMXBean();
    private static final int MAX_GCS = 10;
    private static final long SETTLE_MS = 20;

    @Override
    public String id() {
        return "memory";
    }

    @Override
    public <T> ObjectNode run(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Depth depth, Params params) throws Exception {
        if (depth != Depth.MATERIALIZE) {
            throw Failure.unsupported("memory keeps native objects: depth materialize only");
        }
        Repetitions reps = new Repetitions(params);
        Path base = params.path("input");
        long n = params.u64("n");
        if (n == 0 || n > Integer.MAX_VALUE - 8) {
            throw Failure.badRequest("params.n must be 1 .. 2^31 - 9 (a Java array), got " + n);
        }
        Integer pageSize = params.pageSize();
        long rssStart = Rss.start();
        long[] retained = new long[1];
        Checksum checksum = reps.run(base, timer -> {
            long before = liveHeap();
            long t0 = System.nanoTime();
            Object[] kept = materialize(codec, method, model, base, (int) n, pageSize, timer);
            // only the materialization is timed, not the collections around it
            reps.timed(System.nanoTime() - t0);
            retained[0] = liveHeap() - before;
            return fold(model, kept);
        }, Checksum::sameAs);
        ObjectNode r = reps.result();
        r.set("checksum", checksum.json());
        ObjectNode counters = r.putObject("counters");
        counters.put("objects", n);
        counters.put("retained_bytes", retained[0]);
        counters.put("retained_bytes_per_object", (double) retained[0] / n);
        counters.put("peak_rss_bytes", Rss.peak());
        counters.put("rss_start_bytes", rssStart);
        counters.put("accounting", ACCOUNTING);
        counters.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
        r.put("eviction", reps.eviction());
        return r;
    }

    /**
     * Heap bytes in use after full collections, repeated a few milliseconds apart until the
     * figure stops shrinking: other threads release objects asynchronously (the process
     * reaper of a cold repetition's eviction lets go of about 24 KB some time later).
     */
    public static long liveHeap() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < MAX_GCS; i++) {
            System.gc();
            long now = HEAP.getHeapMemoryUsage().getUsed();
            if (now >= used) {
                return used;
            }
            used = now;
            Thread.sleep(SETTLE_MS);
        }
        return used;
    }

    /** Objects 0 .. n of the file; the reader and its page buffer are unreachable on return. */
    private static <T> Object[] materialize(Codec<T> codec, MethodSpec method,
            ModelType<T> model, Path base, int n, Integer pageSize, IoTimer timer)
            throws Failure {
        Index.Expect expect = new Index.Expect(model.id, method.id(), pageSize);
        try (PageReader reader = new PageReader(base, expect, timer,
                new PageReader.Buffer(method.directPages()))) {
            if (n > reader.index.count) {
                throw new Failure("out_of_range", "objects 0.." + n + " asked, " + base
                    + " holds " + reader.index.count + " objects");
            }
            Object[] kept = new Object[n];
            for (int i = 0; i < n; i++) {
                kept[i] = Reads.decode(codec, reader, i);
            }
            return kept;
        }
    }

    private static <T> Checksum fold(ModelType<T> model, Object[] kept) {
        Checksum c = new Checksum();
        for (Object o : kept) {
            c.add(model.hash(model.type.cast(o)));
        }
        return c;
    }
}
