package serbench.tasks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import serbench.Failure;

/**
 * Cold cache. The JVM has no posix_fadvise, so the pages are dropped by `vmtouch -e`, which
 * calls posix_fadvise(POSIX_FADV_DONTNEED) on each file; files are fsynced by their writer,
 * so every cached page is clean and can go. Then `vmtouch` (mincore) counts what is still
 * cached: on tmpfs, or for pages mapped elsewhere, the call succeeds and drops nothing, which
 * only the residency shows (PROTOCOL.md 5: `cached_fraction`). Runs before a repetition,
 * outside its timing.
 */
public final class Evict {
    private Evict() {}

    public static final String EVICTION = "fadvise_dontneed";
    public static final String TOOL = "vmtouch -e";

    // vmtouch's summary line: "Resident Pages: 0/245  0/980K  0%"
    private static final Pattern RESIDENT = Pattern.compile("Resident Pages: (\\d+)/(\\d+)");

    /** Evicts the files and returns the share of their pages still cached. */
    public static double evict(Path... paths) throws Failure {
        vmtouch(List.of("-q", "-e"), paths);
        return cachedFraction(vmtouch(List.of(), paths));
    }

    /** The share of pages vmtouch's report says are resident (0 for empty files). */
    static double cachedFraction(String report) throws Failure {
        Matcher m = RESIDENT.matcher(report);
        if (!m.find()) {
            throw Failure.internal("vmtouch said no resident page count: " + report);
        }
        long resident = Long.parseLong(m.group(1));
        long pages = Long.parseLong(m.group(2));
        return pages == 0 ? 0.0 : (double) resident / pages;
    }

    private static String vmtouch(List<String> flags, Path... paths) throws Failure {
        List<String> cmd = new ArrayList<>();
        cmd.add("vmtouch");
        cmd.addAll(flags);
        for (Path path : paths) {
            cmd.add(path.toString());
        }
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes()).trim();
            if (p.waitFor() != 0) {
                throw Failure.internal("vmtouch " + String.join(" ", flags) + " failed: "
                    + output);
            }
            return output;
        } catch (IOException e) {
            throw Failure.internal("cold reads need vmtouch (scripts/setup installs it): "
                + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Failure.internal("interrupted while evicting");
        }
    }
}
