package serbench.tasks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import serbench.Bytes;
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
 * The sort floor (PROTOCOL.md 5.2.1): `sort_dedup` with `raw`, the same two phases at the
 * same budget moving bytes only, through SortDedup's plan, merge passes, timing and counters.
 * Phase 1 copies the input's objects' bytes into one chunk buffer until the next would take
 * the bytes held past the budget and writes each chunk, in input order, as `run-<k>`. Phase 2
 * takes objects in turn from each run that has any left, a page buffer per run, at most F
 * runs at a time as the sort merges them. Nothing is decoded, compared or dropped; the files
 * carry the input header's model and method. The chunk and the page buffers live across
 * repetitions. Each merge folds every object it writes as the raw read does (the set
 * checksum of their bytes), timed, as the method's sort folds the objects it merges.
 */
final class SortFloor {
    /** The largest chunk a Java array holds; reached only by budgets of 2 GiB and more. */
    private static final int MAX_CHUNK = Integer.MAX_VALUE - 16;

    private final SortDedup.Plan plan;
    private final String model;
    /** The input's page buffer. */
    private final PageReader.Buffer inputPage = new PageReader.Buffer(false);
    /** The runs' page buffers, one per run of a merge, made as a merge first needs them. */
    private final List<PageReader.Buffer> runPages = new ArrayList<>();
    /** The objects held in phase 1, back to back, and their lengths. */
    private final Bytes chunk = new Bytes(1 << 16);
    private int[] lengths = new int[1 << 10];
    private int held;

    private SortFloor(SortDedup.Plan plan, String model) {
        this.plan = plan;
        this.model = model;
    }

    /** sort_dedup with raw: `codec` and `method` are raw's, the input any method's file. */
    static <T> ObjectNode run(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Params params) throws Exception {
        Repetitions reps = new Repetitions(params);
        SortDedup.Plan plan = SortDedup.Plan.of(params);
        SortFloor floor = new SortFloor(plan, model.id);
        return SortDedup.measure(plan, reps, timer -> floor.new Moves(timer), o -> {
            if (o.outputObjects() != o.inputObjects()) {
                throw new IllegalStateException("the sort floor wrote " + o.outputObjects()
                    + " objects of " + o.inputObjects());
            }
            ObjectNode checksum = Json.MAPPER.createObjectNode();
            checksum.put("count", o.outputObjects());
            checksum.put("sum", Hasher.hex(o.sequence()));
            return checksum;
        });
    }

    /** One repetition's phases, timed by its timer; the input's method read in phase 1. */
    private final class Moves implements SortDedup.Phases {
        private final IoTimer timer;
        private String method;

        Moves(IoTimer timer) {
            this.timer = timer;
        }

        /** Phase 1: chunks of the input's bytes, in input order, as runs. */
        @Override
        public SortDedup.Runs runs() throws Exception {
            ArrayDeque<Path> paths = new ArrayDeque<>();
            long bytes = 0;
            long peak = 0;
            try (PageReader reader = new PageReader(plan.input(),
                    new Index.Expect(model, null, null), timer, inputPage)) {
                Index index = reader.index;
                method = index.method;
                empty();
                for (long n = 0; n < index.count; n++) {
                    int length = index.length(n);
                    long after = (long) chunk.length + length;
                    if (held > 0 && (after > plan.budget() || after > MAX_CHUNK)) {
                        bytes += writeRun(paths);
                    }
                    hold(reader.object(n), index.offset(n), length);
                    peak = Math.max(peak, chunk.length);
                }
                if (held > 0) {
                    bytes += writeRun(paths);
                }
                return new SortDedup.Runs(paths, index.count, bytes, peak);
            }
        }

        /** Writes the chunk as the next run and empties it. */
        private long writeRun(ArrayDeque<Path> paths) throws Exception {
            Path path = plan.run(paths.size());
            try (PageWriter w = new PageWriter(path, plan.pageSize(), timer)) {
                int from = 0;
                for (int k = 0; k < held; k++) {
                    w.push(chunk.array, from, lengths[k]);
                    from += lengths[k];
                }
                empty();
                paths.add(path);
                return w.finish(model, method, Tasks.WRITER, plan.runStamp()).bytes();
            }
        }

        /** One merge: an object from each run that has any left in turn, into `out`. */
        @Override
        public SortDedup.Merged merge(List<Path> group, Path out) throws Exception {
            Index.Expect expect = new Index.Expect(model, method, plan.pageSize());
            PageReader[] readers = new PageReader[group.size()];
            int opened = 0;
            try (PageWriter w = new PageWriter(out, plan.pageSize(), timer)) {
                for (; opened < readers.length; opened++) {
                    readers[opened] = new PageReader(group.get(opened), expect, timer,
                        runPage(opened));
                }
                long sum = takeInTurn(readers, w);
                PageWriter.Counters c = w.finish(model, method, Tasks.WRITER, plan.runStamp());
                return new SortDedup.Merged(c.objects(), sum, c.bytes());
            } finally {
                for (int k = 0; k < opened; k++) {
                    readers[k].close();
                }
            }
        }
    }

    /** Appends object bytes to the chunk. */
    private void hold(ByteBuffer page, int offset, int length) {
        chunk.append(page.array(), offset, length);
        if (held == lengths.length) {
            lengths = Arrays.copyOf(lengths, held * 2);
        }
        lengths[held++] = length;
    }

    private void empty() {
        chunk.length = 0;
        held = 0;
    }

    /** The page buffer of a merge's k-th run. */
    private PageReader.Buffer runPage(int k) {
        while (runPages.size() <= k) {
            runPages.add(new PageReader.Buffer(false));
        }
        return runPages.get(k);
    }

    /**
     * Writes the runs' objects taking one from each run that has any left in turn (run 0,
     * run 1, ..., run 0 again), dropping a run from the turn once it is used up; returns the
     * set checksum of the objects' bytes, each folded as the raw read folds it.
     */
    private static long takeInTurn(PageReader[] runs, PageWriter w) throws Failure {
        long sum = 0;
        PageReader[] turn = runs.clone();
        long[] next = new long[turn.length];
        int live = turn.length;
        while (live > 0) {
            int kept = 0;
            for (int k = 0; k < live; k++) {
                PageReader run = turn[k];
                long n = next[k];
                if (n < run.index.count) {
                    byte[] page = run.object(n).array();
                    int offset = run.index.offset(n);
                    int length = run.index.length(n);
                    w.push(page, offset, length);
                    Hasher h = new Hasher();
                    h.bytes(page, offset, length);
                    sum += h.finish();
                    n++;
                }
                if (n < run.index.count) {
                    turn[kept] = run;
                    next[kept++] = n;
                }
            }
            live = kept;
        }
        return sum;
    }
}
