package serbench.tasks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import serbench.Failure;

/** The process's resident set (Linux /proc/self): current, peak, and resetting the peak. */
public final class Rss {
    private Rss() {}

    private static final Path STATUS = Path.of("/proc/self/status");

    /** Resets the kernel's high-water mark (VmHWM) and returns VmRSS in bytes. */
    public static long start() throws Failure {
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
        } catch (IOException e) {
            throw Failure.internal("resetting the peak resident set: " + e.getMessage());
        }
        return field("VmRSS");
    }

    /** VmHWM in bytes: the peak resident set since the last start(). */
    public static long peak() throws Failure {
        return field("VmHWM");
    }

    private static long field(String name) throws Failure {
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith(name + ":")) {
                    String kb = line.substring(name.length() + 1).trim().split("\\s+")[0];
                    return Long.parseLong(kb) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw Failure.internal(STATUS + ": " + e.getMessage());
        }
        throw Failure.internal(STATUS + " has no " + name);
    }
}
