package serbench.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import serbench.Depth;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Params;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.model.Footprint;
import serbench.model.TotalOrder;
import serbench.paged.Index;
import serbench.paged.PageReader;
import serbench.paged.PageWriter;
import serbench.paged.PagedFile;

/**
 * sort_dedup (PROTOCOL.md 5.2): external merge sort with duplicate removal, in paged files of
 * the cell's own method. Phase 1 decodes the input into a chunk until the next object would
 * take the objects held past the budget (each counted at its generated Footprint estimate
 * plus its reference in the chunk, README: sort_dedup), sorts the chunk by the model's
 * TotalOrder, drops equal neighbours and writes it as `run-<k>`. Phase 2 merges at most
 * F = max(2, budget / page_size - 1) runs at a time through a priority queue of each run's
 * decoded head (ties: the lower run), every run read a page at a time through its own page
 * buffer, dropping an object equal to the last one written; passes repeat until at most F
 * runs remain and the last merge writes `sorted`. Merged runs are deleted. With `raw`, the
 * sort floor (SortFloor, PROTOCOL.md 5.2.1): the same plan, passes, timing and counters
 * (measure, mergeRuns) around phases that move bytes only.
 */
public final class SortDedup implements Task {

    /** A chunk slot: the object's reference in the chunk's array (compressed oops). */
    private static final long SLOT_BYTES = 4;

    /** A sort's files and limits, the same for the method's sort and its floor (SortFloor). */
    record Plan(Path input, Path output, long budget, int pageSize, byte[] runStamp) {
        /** The request's plan; a missing or impossible parameter is refused. */
        static Plan of(Params params) throws Failure {
            Path output = params.path("output");
            long budget = params.u64("budget_bytes");
            if (budget == 0) {
                throw Failure.badRequest("params.budget_bytes must be at least 1");
            }
            Integer p = params.pageSize();
            if (!Files.isDirectory(output)) {
                throw new Failure("not_found", output + ": the output directory does not exist");
            }
            return new Plan(params.path("input"), output, budget,
                p == null ? Tasks.DEFAULT_PAGE_SIZE : p, params.runStamp());
        }

        /** Runs merged at once; capped so a huge budget cannot ask for more open files. */
        int fanIn() {
            return (int) Math.min(1 << 16, Math.max(2, budget / pageSize - 1));
        }

        Path run(long k) {
            return output.resolve("run-" + k);
        }

        Path sorted() {
            return output.resolve("sorted");
        }
    }

    /** One sort's plan, the model's order and footprint, and the repetition's timer. */
    private record Sort<T>(Plan plan, Codec<T> codec, MethodSpec method, ModelType<T> model,
            Comparator<T> order, ToLongFunction<T> footprint, IoTimer timer) implements Phases {
        @Override
        public Runs runs() throws Exception {
            return makeRuns(this);
        }

        @Override
        public Merged merge(List<Path> group, Path out) throws Exception {
            return SortDedup.merge(this, group, out);
        }
    }

    /** One repetition's two phases: the method's sort, or the floor's moves of bytes. */
    interface Phases {
        /** Phase 1: the runs, written as `plan.run(0 ..)`. */
        Runs runs() throws Exception;

        /** One merge of phase 2: the runs of `group` (at most F) into `out`. */
        Merged merge(List<Path> group, Path out) throws Exception;
    }

    /**
     * What one repetition produced; repetitions must write the same output (the runs too,
     * as the accounting is deterministic).
     */
    record Outcome(long inputObjects, long outputObjects, long sequence, long runs,
            long mergePasses, long runBytes, long outputBytes, long peakHeld) {}

    /** What phase 1 produced. */
    record Runs(ArrayDeque<Path> paths, long inputObjects, long bytes, long peakHeld) {}

    /** What one merge wrote (`sequence`: its objects' sequence checksum, 0 if not folded). */
    record Merged(long objects, long sequence, long bytes) {}

    @Override
    public String id() {
        return "sort_dedup";
    }

    @Override
    public <T> ObjectNode run(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Depth depth, Params params) throws Exception {
        if (!method.writes() && depth == Depth.NONE) {
            return SortFloor.run(codec, method, model, params);
        }
        if (depth != Depth.MATERIALIZE || !method.writes()) {
            throw Failure.unsupported("sort_dedup decodes, sorts and writes: depth materialize "
                + "of a writing method (or raw, the floor, at no depth)");
        }
        Repetitions reps = new Repetitions(params);
        Plan plan = Plan.of(params);
        @SuppressWarnings("unchecked")
        Comparator<T> order = (Comparator<T>) TotalOrder.of(model.id);
        @SuppressWarnings("unchecked")
        ToLongFunction<T> footprint = (ToLongFunction<T>) Footprint.of(model.id);
        return measure(plan, reps, timer -> new Sort<>(plan, codec, method, model, order,
            footprint, timer), o -> {
                ObjectNode checksum = Json.MAPPER.createObjectNode();
                checksum.put("count", o.outputObjects());
                checksum.put("sum", Hasher.hex(o.sequence()));
                return checksum;
            });
    }

    /**
     * The repetitions of a sort (each with the phases `phases` makes for its timer) between
     * the RSS readings, and its result: samples with phase1_ns and phase2_ns, the checksum
     * `checksum` makes of the outcome, the counters.
     */
    static ObjectNode measure(Plan plan, Repetitions reps, Function<IoTimer, Phases> phases,
            Function<Outcome, JsonNode> checksum) throws Exception {
        long rssStart = Rss.start();
        List<MemoryPoolMXBean> heap = heapPools();
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        Outcome o = reps.run(plan.input(), timer -> once(plan, reps, phases.apply(timer)),
            Outcome::equals);
        ObjectNode r = reps.result();
        r.set("checksum", checksum.apply(o));
        ObjectNode c = r.putObject("counters");
        c.put("input_objects", o.inputObjects());
        c.put("output_objects", o.outputObjects());
        c.put("runs", o.runs());
        c.put("merge_passes", o.mergePasses());
        c.put("budget_bytes", plan.budget());
        c.put("peak_rss_bytes", Rss.peak());
        c.put("rss_start_bytes", rssStart);
        c.put("run_bytes", o.runBytes());
        c.put("output_bytes", o.outputBytes());
        c.put("peak_held_bytes", o.peakHeld());
        c.put("peak_heap_bytes", heap.stream().mapToLong(m -> m.getPeakUsage().getUsed()).sum());
        c.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
        r.put("eviction", reps.eviction());
        return r;
    }

    /** One repetition: both phases, each timed. */
    private static Outcome once(Plan plan, Repetitions reps, Phases phases) throws Exception {
        long t0 = System.nanoTime();
        Runs runs = phases.runs();
        long t1 = System.nanoTime();
        Outcome done = mergeRuns(plan, runs, phases);
        reps.note("phase1_ns", t1 - t0);
        reps.note("phase2_ns", System.nanoTime() - t1);
        return done;
    }

    private static List<MemoryPoolMXBean> heapPools() {
        return ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(m -> m.getType() == MemoryType.HEAP).toList();
    }

    /** Phase 1: the sorted, deduplicated runs. */
    private static <T> Runs makeRuns(Sort<T> sort) throws Exception {
        ArrayDeque<Path> paths = new ArrayDeque<>();
        long bytes = 0;
        long peakHeld = 0;
        Index.Expect expect = new Index.Expect(sort.model().id, sort.method().id(), null);
        try (PageReader reader = new PageReader(sort.plan().input(), expect, sort.timer(),
                new PageReader.Buffer(sort.method().directPages()))) {
            List<T> chunk = new ArrayList<>();
            long held = 0;
            for (long i = 0; i < reader.index.count; i++) {
                T object = Reads.decode(sort.codec(), reader, i);
                long size = sort.footprint().applyAsLong(object) + SLOT_BYTES;
                if (!chunk.isEmpty() && held + size > sort.plan().budget()) {
                    bytes += writeRun(sort, chunk, paths);
                    held = 0;
                }
                chunk.add(object);
                held += size;
                peakHeld = Math.max(peakHeld, held);
            }
            if (!chunk.isEmpty()) {
                bytes += writeRun(sort, chunk, paths);
            }
            return new Runs(paths, reader.index.count, bytes, peakHeld);
        }
    }

    /** Sorts the chunk, writes it without equal neighbours as the next run and empties it. */
    private static <T> long writeRun(Sort<T> sort, List<T> chunk, ArrayDeque<Path> paths)
            throws Exception {
        chunk.sort(sort.order());
        Path path = sort.plan().run(paths.size());
        try (PageWriter w = new PageWriter(path, sort.plan().pageSize(), sort.timer())) {
            T last = null;
            for (T object : chunk) {
                if (last == null || sort.order().compare(last, object) != 0) {
                    w.push(out -> sort.codec().encode(object, out));
                    last = object;
                }
            }
            chunk.clear();
            paths.add(path);
            return w.finish(sort.model().id, sort.method().id(), Tasks.WRITER, sort.plan().runStamp())
                .bytes();
        }
    }

    /**
     * Phase 2: F-way merges into new runs until at most F remain; the last writes sorted.
     * Merged runs are deleted.
     */
    private static Outcome mergeRuns(Plan plan, Runs runs, Phases phases) throws Exception {
        ArrayDeque<Path> paths = runs.paths();
        long made = paths.size();
        long next = made;
        long passes = 0;
        long runBytes = runs.bytes();
        int fanIn = plan.fanIn();
        while (paths.size() > fanIn) {
            List<Path> group = new ArrayList<>();
            for (int k = 0; k < fanIn; k++) {
                group.add(paths.poll());
            }
            Path path = plan.run(next++);
            runBytes += phases.merge(group, path).bytes();
            remove(group);
            paths.add(path);
            passes++;
        }
        List<Path> group = new ArrayList<>(paths);
        Merged m = phases.merge(group, plan.sorted());
        remove(group);
        return new Outcome(runs.inputObjects(), m.objects(), m.sequence(), made, passes + 1,
            runBytes, m.bytes(), runs.peakHeld());
    }

    /** One run being merged: its reader (own page buffer), position and decoded head. */
    private static final class Cursor<T> {
        final PageReader reader;
        final int run;
        long next;
        T head;

        Cursor(PageReader reader, int run) {
            this.reader = reader;
            this.run = run;
        }

        /** Decodes the run's next object into head; false at the run's end. */
        boolean advance(Codec<T> codec) throws Failure {
            if (next == reader.index.count) {
                head = null;
                return false;
            }
            head = Reads.decode(codec, reader, next++);
            return true;
        }
    }

    /** Merges sorted runs into `out`, each distinct object once; folds the sequence. */
    private static <T> Merged merge(Sort<T> sort, List<Path> group, Path out) throws Exception {
        Comparator<Cursor<T>> byHead = (a, b) -> {
            int c = sort.order().compare(a.head, b.head);
            return c != 0 ? c : Integer.compare(a.run, b.run);
        };
        PriorityQueue<Cursor<T>> queue = new PriorityQueue<>(group.size(), byHead);
        List<PageReader> readers = new ArrayList<>();
        Index.Expect expect = new Index.Expect(sort.model().id, sort.method().id(),
            sort.plan().pageSize());
        try (PageWriter w = new PageWriter(out, sort.plan().pageSize(), sort.timer())) {
            for (int k = 0; k < group.size(); k++) {
                PageReader reader = new PageReader(group.get(k), expect, sort.timer(),
                    new PageReader.Buffer(sort.method().directPages()));
                readers.add(reader);
                Cursor<T> cursor = new Cursor<>(reader, k);
                if (cursor.advance(sort.codec())) {
                    queue.add(cursor);
                }
            }
            Hasher sequence = new Hasher();
            T last = null;
            while (!queue.isEmpty()) {
                Cursor<T> top = queue.poll();
                T object = top.head;
                if (top.advance(sort.codec())) {
                    queue.add(top);
                }
                if (last != null && sort.order().compare(last, object) == 0) {
                    continue;
                }
                w.push(bytes -> sort.codec().encode(object, bytes));
                sequence.word(sort.model().hash(object));
                last = object;
            }
            PageWriter.Counters c = w.finish(sort.model().id, sort.method().id(),
                Tasks.WRITER, sort.plan().runStamp());
            return new Merged(c.objects(), sequence.finish(), c.bytes());
        } finally {
            readers.forEach(PageReader::close);
        }
    }

    private static void remove(List<Path> runs) throws Failure {
        for (Path run : runs) {
            for (Path path : List.of(PagedFile.data(run), PagedFile.index(run))) {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw Failure.io(path, e);
                }
            }
        }
    }
}
