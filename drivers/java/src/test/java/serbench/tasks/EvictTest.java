package serbench.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static serbench.Prerequisites.require;

import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import serbench.Failure;

/** Eviction shows what it left cached: nothing for a synced disk file, everything on tmpfs. */
class EvictTest {
    /** A 1 MiB file written, synced and read back (so cached) in a new folder under `parent`. */
    private static Path cachedFile(Path parent) throws Exception {
        Path dir = Files.createTempDirectory(parent, "evict-test");
        Path file = dir.resolve("f.bin");
        try (FileOutputStream out = new FileOutputStream(file.toFile())) {
            out.write(new byte[1 << 20]);
            out.getFD().sync();
        }
        Files.readAllBytes(file);
        return file;
    }

    private static void remove(Path file) throws Exception {
        Files.delete(file);
        Files.delete(file.getParent());
    }

    @Test
    void aSyncedDiskFileIsEvictedCompletely() throws Exception {
        // the build's own folder: on the project's disk, where /tmp may be tmpfs
        Path target = Paths.get("target").toAbsolutePath();
        require(!Files.getFileStore(target).type().equals("tmpfs"), "no disk to show it on");
        Path file = cachedFile(target);
        try {
            assertEquals(0.0, Evict.evict(file));
        } finally {
            remove(file);
        }
    }

    @Test
    void aTmpfsFileStaysCachedAndSaysSo() throws Exception {
        Path shm = Paths.get("/dev/shm");
        require(Files.isDirectory(shm) && Files.getFileStore(shm).type().equals("tmpfs"),
            "no tmpfs to show it on");
        Path file = cachedFile(shm);
        try {
            assertEquals(1.0, Evict.evict(file));
        } finally {
            remove(file);
        }
    }

    @Test
    void theShareIsReadFromVmtouchsSummary() throws Exception {
        String report = "           Files: 2\n     Directories: 0\n"
            + "  Resident Pages: 25/270  100K/1M  9.26%\n         Elapsed: 0.000118 seconds";
        assertEquals(25.0 / 270, Evict.cachedFraction(report));
        assertEquals(0.0, Evict.cachedFraction("  Resident Pages: 0/0  0/0  0%"));
        assertThrows(Failure.class, () -> Evict.cachedFraction("vmtouch: something else"));
    }
}
