package serbench.tasks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;
import serbench.Failure;
import serbench.IoTimer;
import serbench.Params;
import serbench.paged.PagedFile;

/**
 * Warm-ups then measured repetitions, each optionally from a cold page cache, timed. Warm-ups
 * go on past `warmups` until `warmup_ms` has passed since the first began (JMH's time-based
 * warm-up: the JIT compiles after time spent, not after a count of repetitions). The first
 * repetition a JVM runs is also its cold-JIT one: its sample says `"jit": "cold"`, the
 * others `"warm"`, so the report can show or drop it. Each sample also carries `jit_ms`: the
 * milliseconds the JIT's compiler threads spent compiling during that repetition (the
 * CompilationMXBean's total before and after), so the harness can tell a measured region the
 * JIT was still changing from a steady one, and `jit_cpu_ns`: the compiler threads' CPU time
 * during it (CompilerThreads), which also counts a compile that has not ended yet. With
 * `warmup_max_ms`, warm-ups go on past both
 * while the JIT is still compiling, until the last QUIET_WINDOW_NS of warm-ups spent at most
 * QUIET_SHARE of their time compiling or warmup_max_ms has passed: each cell warms as long as
 * its own code needs, no longer. "Compiling" is judged twice: by the MXBean's finished
 * compilations and by the compiler threads' CPU time (CompilerThreads), which also sees a
 * compile still running, so a window between two long C2 compiles does not pass for quiet.
 * A later cell of the same process whose code is already compiled is done after one window.
 * Before each measured repetition the JIT is given up to SETTLE_MAX_NS to finish what work
 * outside the timed region queued (the last sample's bookkeeping, the eviction's process
 * code, a per-repetition method crossing a compile threshold), so that it does not compile
 * on beside the measured code.
 * Those JIT-only warm-ups (thousands for a short read) are summed into one `jit_warmup`
 * summary instead of one sample each: a sample per repetition cost more than the
 * repetitions themselves.
 *
 * A task's own per-repetition figures (`encode_ns`, `thread_ns`, ...) are given with
 * {@link #note} during the repetition and land in its sample, if it has one.
 */
public final class Repetitions {
    /** One repetition's work; returns what it read (equal in every repetition). */
    public interface Once<R> {
        R run(IoTimer timer) throws Exception;
    }

    private static boolean jitWarm;
    // the harness calls a measured region unsteady past 2 % of its time compiling (steady.py)
    private static final long QUIET_WINDOW_NS = 100_000_000L;
    private static final double QUIET_SHARE = 0.02;
    // a settle polls the compiler threads' states (~0.2 ms a reading) and ends after two
    // idle readings in a row; C1's compiles of small methods take 0.1-2 ms
    private static final long SETTLE_POLL_NS = 500_000L;
    private static final long SETTLE_MAX_NS = 20_000_000L;
    /** Null where the JVM cannot time its compilation (then no sample carries `jit_ms`). */
    private static final CompilationMXBean JIT = compilationBean();

    public final long warmups;
    public final long warmupNs;
    public final long warmupMaxNs;
    public final long repetitions;
    public final boolean cold;
    public final ArrayNode samples = Json.MAPPER.createArrayNode();
    /** The current repetition's own figures (note), and its time if the task sets it. */
    private final ObjectNode noted = Json.MAPPER.createObjectNode();
    private long timedNs = -1;
    /** Recent warm-ups as {total_ns, jit_ms, compiler_cpu_ns}, newest last: the window
     *  jitQuiet judges. */
    private final ArrayDeque<long[]> recent = new ArrayDeque<>();
    private long windowNs;
    private long windowJitMs;
    private long windowCompilerNs;
    private long quietCount;
    private long quietNs;
    private long quietJitMs;

    public Repetitions(Params params) throws Failure {
        warmups = params.u64("warmups");
        warmupNs = params.u64Or("warmup_ms", 0) * 1_000_000L;
        warmupMaxNs = params.u64Or("warmup_max_ms", 0) * 1_000_000L;
        repetitions = params.u64("repetitions");
        cold = params.bool("cold");
        if (warmups + repetitions == 0) {
            throw Failure.badRequest("warmups + repetitions is 0");
        }
    }

    /** Runs every repetition (evicting `base`'s files first when cold); returns the outcome. */
    public <R> R run(Path base, Once<R> once, java.util.function.BiPredicate<R, R> same)
            throws Exception {
        R outcome = null;
        long began = System.nanoTime();
        for (long rep = 0; ; rep++) {
            boolean asked = rep < warmups || System.nanoTime() - began < warmupNs;
            if (!asked && (System.nanoTime() - began >= warmupMaxNs || jitQuiet())) {
                break;
            }
            // warm-ups that only wait for the JIT skip the eviction: they are there to
            // compile the code, and a vmtouch process per repetition would be most of their time
            outcome = one(asked ? base : null, once, same, rep, true, outcome, asked);
        }
        for (long rep = 0; rep < repetitions; rep++) {
            outcome = one(base, once, same, rep, false, outcome, true);
        }
        return outcome;
    }

    /** A figure of the current repetition's own, for its sample (e.g. `encode_ns`). */
    public void note(String key, long value) {
        noted.put(key, value);
    }

    /** Per-thread times of the current repetition, for its sample. */
    public void note(String key, long[] values) {
        ArrayNode array = noted.putArray(key);
        for (long v : values) {
            array.add(v);
        }
    }

    /** The current repetition's time when the task times only part of it (memory). */
    public void timed(long ns) {
        timedNs = ns;
    }

    /** A task's result so far: the samples, and the JIT-only warm-ups summed
     *  (`jit_warmup`: repetitions, total_ns, jit_ms) if any ran. */
    public ObjectNode result() {
        ObjectNode r = Json.MAPPER.createObjectNode();
        r.set("samples", samples);
        if (quietCount > 0) {
            ObjectNode summary = r.putObject("jit_warmup");
            summary.put("repetitions", quietCount);
            summary.put("total_ns", quietNs);
            summary.put("jit_ms", quietJitMs);
        }
        return r;
    }

    /** One timed repetition, with a sample if `sampled`; returns the outcome every repetition
     *  must equal. */
    private <R> R one(Path base, Once<R> once, java.util.function.BiPredicate<R, R> same,
            long rep, boolean warmup, R outcome, boolean sampled) throws Exception {
        double cached = cold && base != null
            ? Evict.evict(PagedFile.data(base), PagedFile.index(base)) : -1;
        noted.removeAll();
        timedNs = -1;
        if (!warmup) {
            settle();
        }
        IoTimer timer = new IoTimer();
        // read outside the timed region: a reading lists /proc/self/task (~0.15-0.25 ms)
        long compilerBefore = CompilerThreads.cpuNs();
        long jitBefore = JIT == null ? 0 : JIT.getTotalCompilationTime();
        long start = System.nanoTime();
        R result = once.run(timer);
        long elapsed = System.nanoTime() - start;
        long jitMs = JIT == null ? 0 : JIT.getTotalCompilationTime() - jitBefore;
        long compilerAfter = CompilerThreads.cpuNs();
        long compilerNs = compilerDelta(compilerBefore, compilerAfter);
        long total = timedNs >= 0 ? timedNs : elapsed;
        if (warmup) {
            remember(total, jitMs, compilerNs);
        }
        if (sampled) {
            ObjectNode s = samples.addObject();
            s.put("rep", rep);
            s.put("warmup", warmup);
            s.put("total_ns", total);
            s.put("cpu_ns", Math.max(0, total - timer.ns()));
            s.put("io_ns", timer.ns());
            s.put("jit", jitWarm ? "warm" : "cold");
            if (JIT != null) {
                s.put("jit_ms", jitMs);
            }
            if (compilerBefore >= 0 && compilerAfter >= 0) {
                s.put("jit_cpu_ns", compilerNs);
            }
            s.setAll(noted);
            if (cached >= 0) {
                s.put("cached_fraction", cached);
            }
        } else {
            quietCount++;
            quietNs += total;
            quietJitMs += jitMs;
        }
        jitWarm = true;
        if (outcome == null) {
            return result;
        }
        if (!same.test(outcome, result)) {
            throw new Failure("checksum_mismatch", "repetition " + rep + " (warm-up: "
                + warmup + ") read something else than the first");
        }
        return outcome;
    }

    /** Waits until no compiler thread is on a CPU at two readings in a row, or
     *  SETTLE_MAX_NS. */
    private static void settle() {
        if (JIT == null) {
            return;
        }
        long deadline = System.nanoTime() + SETTLE_MAX_NS;
        for (int idle = 0; idle < 2 && System.nanoTime() < deadline; ) {
            idle = CompilerThreads.busy() ? 0 : idle + 1;
            if (idle < 2) {
                LockSupport.parkNanos(SETTLE_POLL_NS);
            }
        }
    }

    /** The JIT compiled for at most QUIET_SHARE of the last QUIET_WINDOW_NS of warm-ups,
     *  by finished compilations and by its threads' CPU time. */
    private boolean jitQuiet() {
        if (JIT == null) {
            return true;  // nothing to wait for that this JVM can see
        }
        return quiet(windowNs, windowJitMs * 1_000_000L, windowCompilerNs);
    }

    /** A window of warm-ups long enough, with both compile figures within QUIET_SHARE. */
    static boolean quiet(long windowNs, long jitNs, long compilerNs) {
        double most = QUIET_SHARE * windowNs;
        return windowNs >= QUIET_WINDOW_NS && jitNs <= most && compilerNs <= most;
    }

    /** Compiler-thread CPU between two readings; 0 where unknown or where a thread that
     *  ended took its time with it. */
    static long compilerDelta(long before, long after) {
        return before < 0 || after < 0 ? 0 : Math.max(0, after - before);
    }

    /** A warm-up's figures into the window, dropping the oldest the window no longer needs. */
    private void remember(long totalNs, long jitMs, long compilerNs) {
        recent.addLast(new long[] {totalNs, jitMs, compilerNs});
        windowNs += totalNs;
        windowJitMs += jitMs;
        windowCompilerNs += compilerNs;
        while (recent.size() > 1 && windowNs - recent.peekFirst()[0] >= QUIET_WINDOW_NS) {
            long[] oldest = recent.removeFirst();
            windowNs -= oldest[0];
            windowJitMs -= oldest[1];
            windowCompilerNs -= oldest[2];
        }
    }

    /**
     * The JIT's counters now, for a caller timing a region of its own (a network node's
     * repetition): {the compilation ms so far, or -1 where the JVM cannot time it; the
     * compiler threads' CPU ns, or -1 where the system does not say}. Read outside the
     * timed region: a reading lists /proc/self/task.
     */
    public static long[] jitNow() {
        return new long[] {JIT == null ? -1 : JIT.getTotalCompilationTime(),
                           CompilerThreads.cpuNs()};
    }

    /** The JIT figures of a region between two {@link #jitNow} readings, into `sample`
     *  (`jit_ms`, `jit_cpu_ns`), each only where both readings have it. */
    public static void putJit(ObjectNode sample, long[] before, long[] after) {
        if (before[0] >= 0 && after[0] >= 0) {
            sample.put("jit_ms", after[0] - before[0]);
        }
        if (before[1] >= 0 && after[1] >= 0) {
            sample.put("jit_cpu_ns", compilerDelta(before[1], after[1]));
        }
    }

    private static CompilationMXBean compilationBean() {
        CompilationMXBean bean = ManagementFactory.getCompilationMXBean();
        return bean != null && bean.isCompilationTimeMonitoringSupported() ? bean : null;
    }

    public String eviction() {
        return cold ? Evict.EVICTION : "none";
    }
}
