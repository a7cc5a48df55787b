package serbench.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static serbench.Prerequisites.require;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CompilerThreadsTest {
    /** Whether Linux gives this process's threads' CPU time, read here, not from the code. */
    static final boolean SCHEDSTAT = Files.isReadable(Path.of("/proc/self/schedstat"));

    @Test
    void namesHotSpotsCompilerThreadsOnly() {
        assertTrue(CompilerThreads.isCompilerName("C2 CompilerThre"));
        assertTrue(CompilerThreads.isCompilerName("C1 CompilerThre"));
        assertFalse(CompilerThreads.isCompilerName("G1 Conc#0"));
        assertFalse(CompilerThreads.isCompilerName("main"));
    }

    @Test
    void readsTheOnCpuTimeOfASchedstatLine() {
        assertEquals(646068L, CompilerThreads.firstField("646068 0 2\n"));
        assertEquals(646068L, CompilerThreads.firstField("646068\n"));
    }

    @Test
    void readsAThreadsStateAfterItsNameWhateverTheNameHolds() {
        assertEquals('R', CompilerThreads.state("4242 (C2 CompilerThre) R 1 2 3"));
        assertEquals('S', CompilerThreads.state("4242 (a (b) c) S 1 2 3"));
    }

    @Test
    void seesTheTimeThisJvmHasSpentCompiling() {
        require(SCHEDSTAT, "no per-thread scheduler statistics (/proc/self/schedstat)");
        // by the time a test runs, the JIT has compiled the test framework's hot code
        assertTrue(CompilerThreads.cpuNs() > 0);
    }

    @Test
    void aWindowIsQuietOnlyWhenLongEnoughAndBothFiguresAreSmall() {
        long window = 100_000_000L;
        assertTrue(Repetitions.quiet(window, 0, 0));
        assertTrue(Repetitions.quiet(window, 2_000_000L, 2_000_000L));
        assertFalse(Repetitions.quiet(window - 1, 0, 0), "too short");
        assertFalse(Repetitions.quiet(window, 3_000_000L, 0), "finished compiles");
        // a C2 compile still running: no finished compilation yet, its thread on a CPU
        assertFalse(Repetitions.quiet(window, 0, 30_000_000L), "a compile under way");
    }

    @Test
    void aReadingThatFellOrIsUnknownCountsNoCompilerTime() {
        assertEquals(5L, Repetitions.compilerDelta(10, 15));
        assertEquals(0L, Repetitions.compilerDelta(15, 10));
        assertEquals(0L, Repetitions.compilerDelta(-1, 10));
        assertEquals(0L, Repetitions.compilerDelta(10, -1));
    }
}
