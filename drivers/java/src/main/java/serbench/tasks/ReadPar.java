package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import serbench.Depth;
import serbench.Failure;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.paged.PageReader;

/**
 * read_par (PROTOCOL.md 5.1): T platform threads, each with its own codec, file channel, index
 * check and page buffer, read contiguous slices of one selection (a range or the harness's id
 * list) exactly as read_seq / read_rand do, released together by a barrier; their set
 * checksums add up.
 */
public final class ReadPar implements Task {

    /** One thread's outcome in one repetition. */
    private record Part(Reads.Outcome outcome, long ns, long ioNs) {}

    @Override
    public String id() {
        return "read_par";
    }

    /** Every thread makes its own codec; the one given is not used. */
    @Override
    public <T> ObjectNode run(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Depth depth, Params params) throws Exception {
        Repetitions reps = new Repetitions(params);
        Path base = params.path("input");
        long threads = params.u64("threads");
        if (threads == 0 || threads > 4096) {
            throw Failure.badRequest("params.threads must be 1 .. 4096, got " + threads);
        }
        long n = params.u64("n");
        String mode = params.text("mode");
        Reads.Selection sel;
        if (mode.equals("seq")) {
            sel = new Reads.Selection(params.u64("start"), n, null);
        } else if (mode.equals("rand")) {
            sel = new Reads.Selection(0, 0, Tasks.readIds(params.path("ids"), n));
        } else {
            throw Failure.badRequest("params.mode must be seq or rand, got " + mode);
        }
        Integer pageSize = params.pageSize();
        PageReader.Buffer[] pages = new PageReader.Buffer[(int) threads];
        for (int t = 0; t < threads; t++) {
            pages[t] = new PageReader.Buffer(method.directPages());
        }
        Reads.Selection[] slices = new Reads.Selection[(int) threads];
        for (int t = 0; t < threads; t++) {
            slices[t] = slice(sel, t, (int) threads);
        }
        Reads.Outcome o = reps.run(base, timer -> {
            List<Part> parts = parallel(method, model, base, slices, depth, pageSize, pages);
            Reads.Outcome merged = merge(parts, timer);
            reps.note("thread_ns", parts.stream().mapToLong(Part::ns).toArray());
            return merged;
        }, Reads.Outcome::same);
        ObjectNode r = reps.result();
        r.set("checksum", o.checksum().json());
        ObjectNode counters = r.putObject("counters");
        counters.put("objects", o.count());
        counters.put("threads", threads);
        counters.put("pages_read", o.pagesRead());
        r.put("eviction", reps.eviction());
        return r;
    }

    /** Thread t of T takes positions floor(t*n/T) .. floor((t+1)*n/T) of the selection. */
    static Reads.Selection slice(Reads.Selection sel, int t, int threads) {
        long n = sel.ids() == null ? sel.n() : sel.ids().length;
        long from = t * n / threads;
        long to = (t + 1) * n / threads;
        if (sel.ids() == null) {
            return new Reads.Selection(sel.start() + from, to - from, null);
        }
        return new Reads.Selection(0, 0, java.util.Arrays.copyOfRange(sel.ids(), (int) from,
            (int) to));
    }

    /** One repetition: every thread opens the file and reads its slice; they start together. */
    private static <T> List<Part> parallel(MethodSpec method, ModelType<T> model, Path base,
            Reads.Selection[] slices, Depth depth, Integer pageSize, PageReader.Buffer[] pages)
            throws Exception {
        int threads = pages.length;
        CyclicBarrier start = new CyclicBarrier(threads);
        Part[] parts = new Part[threads];
        Throwable[] failures = new Throwable[threads];
        Thread[] running = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int me = t;
            Reads.Selection mine = slices[t];
            Codec<T> codec = method.codec(model);
            running[t] = new Thread(() -> {
                try {
                    IoTimer own = new IoTimer();
                    start.await();
                    long began = System.nanoTime();
                    Reads.Outcome o = Reads.read(codec, method, model, base, mine, depth,
                        pageSize, pages[me], own);
                    parts[me] = new Part(o, System.nanoTime() - began, own.ns());
                } catch (Exception | Error e) {
                    failures[me] = e;
                }
            }, "read_par-" + t);
            running[t].start();
        }
        for (Thread thread : running) {
            thread.join();
        }
        for (Throwable e : failures) {
            if (e instanceof Exception x) {
                throw x;
            } else if (e != null) {
                throw Failure.internal("a read_par thread failed: " + Reads.describe(e));
            }
        }
        return List.of(parts);
    }

    /** The threads' outcomes as one; `timer` gets their mean time inside read calls. */
    private static Reads.Outcome merge(List<Part> parts, IoTimer timer) {
        long count = 0;
        long sum = 0;
        long pagesRead = 0;
        long io = 0;
        for (Part p : parts) {
            count += p.outcome().count();
            sum += p.outcome().sum();
            pagesRead += p.outcome().pagesRead();
            io += p.ioNs();
        }
        timer.add(io / parts.size());
        return new Reads.Outcome(count, sum, pagesRead, parts.get(0).outcome().writer());
    }
}
