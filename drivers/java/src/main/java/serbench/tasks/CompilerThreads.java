package serbench.tasks;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * CPU time of the JIT's compiler threads, from Linux's per-thread scheduler statistics. The
 * CompilationMXBean counts a compilation only once it has finished, so a long C2 compile
 * (hundreds of ms on a loaded 2-core machine) is invisible while it runs and lands whole in
 * whatever repetition it ends in; its thread's CPU time shows it from the start. The
 * warm-up's quiet test uses it, and every sample carries it as `jit_cpu_ns` beside the
 * MXBean's `jit_ms`.
 */
final class CompilerThreads {
    private CompilerThreads() {}

    private static final Path TASKS = Path.of("/proc/self/task");
    static final boolean AVAILABLE = Files.isReadable(Path.of("/proc/self/schedstat"));
    /** Whether each thread seen is a compiler thread, read once: a thread keeps its name,
     *  and a short read warms up in thousands of repetitions, each reading this twice. */
    private static final Map<Path, Boolean> COMPILER = new ConcurrentHashMap<>();
    /** The compiler threads never change when the JVM starts them all at once (the
     *  launcher's -XX:-UseDynamicNumberOfCompilerThreads): then they are listed once, and a
     *  reading opens their files only. Listing /proc/self/task at every reading was itself
     *  code compiled late, during measured repetitions (the directory stream's iterator). */
    private static final boolean FIXED = fixedCompilerThreads();
    private static volatile List<Path> fixed;

    /** Summed on-CPU nanoseconds of the compiler threads alive now; -1 where the system
     *  does not say (not Linux, or no scheduler statistics). A compiler thread that ends
     *  takes its time with it: callers take a fall as no time. */
    static long cpuNs() {
        if (!AVAILABLE) {
            return -1;
        }
        List<Path> compilers = compilers();
        if (compilers == null) {
            return -1;
        }
        long sum = 0;
        for (Path thread : compilers) {
            sum += runNs(thread);
        }
        return sum;
    }

    /** Whether a compiler thread is on a CPU or waiting for one now (state R): a compile
     *  under way. False where the system does not say. */
    static boolean busy() {
        if (!AVAILABLE) {
            return false;
        }
        List<Path> compilers = compilers();
        if (compilers == null) {
            return false;
        }
        for (Path thread : compilers) {
            if (running(thread)) {
                return true;
            }
        }
        return false;
    }

    /** The compiler threads' /proc/self/task entries; null when they cannot be listed. */
    private static List<Path> compilers() {
        List<Path> known = fixed;
        if (known != null) {
            return known;
        }
        try (Stream<Path> threads = Files.list(TASKS)) {
            List<Path> now = threads
                .filter(t -> COMPILER.computeIfAbsent(t, CompilerThreads::isCompiler)).toList();
            if (FIXED && !now.isEmpty()) {
                fixed = now;
            }
            return now;
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean fixedCompilerThreads() {
        try {
            return "false".equals(ManagementFactory.getPlatformMXBean(
                HotSpotDiagnosticMXBean.class).getVMOption("UseDynamicNumberOfCompilerThreads")
                .getValue());
        } catch (RuntimeException e) {  // not HotSpot: list them at every reading
            return false;
        }
    }

    /** A thread's state letter in its stat line, "tid (comm) S ...": after the last ')',
     *  since the name may hold spaces and parentheses. */
    static char state(String stat) {
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    /** HotSpot names them "C1 CompilerThread0", "C2 CompilerThread1", ... ("comm" keeps
     *  15 characters). */
    static boolean isCompilerName(String comm) {
        return comm.matches("C[12] CompilerThre.*");
    }

    /** The first field of a schedstat line: time spent on a CPU, ns. */
    static long firstField(String schedstat) {
        // no regex: this runs twice a repetition, and a split's Pattern would be JIT work of
        // its own beside the measured code
        int end = schedstat.indexOf(' ');
        return Long.parseLong(end < 0 ? schedstat.trim() : schedstat.substring(0, end));
    }

    private static boolean isCompiler(Path thread) {
        try {
            return isCompilerName(Files.readString(thread.resolve("comm")).trim());
        } catch (IOException e) {
            return false;  // the thread ended while listed
        }
    }

    private static boolean running(Path thread) {
        try {
            return state(Files.readString(thread.resolve("stat"))) == 'R';
        } catch (IOException e) {
            return false;  // ended while listed
        }
    }

    private static long runNs(Path thread) {
        try {
            return firstField(Files.readString(thread.resolve("schedstat")));
        } catch (IOException e) {
            return 0;  // ended while listed: its time no longer counts either way
        }
    }
}
