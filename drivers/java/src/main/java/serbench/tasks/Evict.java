package serbench.tasks;

import java.io.IOException;
import java.nio.file.Path;
import serbench.Failure;

/**
 * Cold cache. The JVM has no posix_fadvise, so the pages are dropped by `vmtouch -e`, which
 * calls posix_fadvise(POSIX_FADV_DONTNEED) on each file; files are fsynced by their writer,
 * so every cached page is clean and can go. Runs before a repetition, outside its timing.
 */
public final class Evict {
    private Evict() {}

    public static final String EVICTION = "fadvise_dontneed";
    public static final String TOOL = "vmtouch -e";

    public static void evict(Path... paths) throws Failure {
        String[] cmd = new String[paths.length + 3];
        cmd[0] = "vmtouch";
        cmd[1] = "-q";
        cmd[2] = "-e";
        for (int i = 0; i < paths.length; i++) {
            cmd[i + 3] = paths[i].toString();
        }
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes()).trim();
            if (p.waitFor() != 0) {
                throw Failure.internal("vmtouch -e failed: " + output);
            }
        } catch (IOException e) {
            throw Failure.internal("cold reads need vmtouch (scripts/setup installs it): "
                + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Failure.internal("interrupted while evicting");
        }
    }
}
