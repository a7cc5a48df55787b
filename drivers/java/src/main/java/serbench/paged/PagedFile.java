package serbench.paged;

import java.nio.file.Path;

/** The two files of a paged file named by its base path. */
public final class PagedFile {
    private PagedFile() {}

    public static Path data(Path base) {
        return Path.of(base + ".pages");
    }

    public static Path index(Path base) {
        return Path.of(base + ".index");
    }
}
