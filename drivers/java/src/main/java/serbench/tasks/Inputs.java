package serbench.tasks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import serbench.Failure;
import serbench.ModelType;

/**
 * A task's untimed input, loaded once per process while its file stays the same: the next
 * round of a cell, and the next cell of its group, find it in memory. Loaded again for every
 * request, the JSON Lines parser and the hash ran over every object just before the timed
 * repetitions, and the C2 compiles that queued ran on beside them: with PrintCompilation,
 * Jackson's parser, the model's readJson and the Hasher were compiled during measured writes
 * after every other path was warm. One input is kept, of up to MAX_BYTES of file; a larger
 * one is loaded for each request, as before.
 */
final class Inputs {
    private Inputs() {}

    /** A JSON Lines input's objects (unmodifiable), and their set checksum. */
    record Objects<T>(List<T> objects, long count, long sum) {
        Checksum checksum() {
            Checksum c = new Checksum();
            c.count = count;
            c.sum = sum;
            return c;
        }
    }

    /** The objects of a JSON Lines file of `model`, as Json.load reads them. */
    @SuppressWarnings("unchecked")
    static <T> Objects<T> objects(Path input, ModelType<T> model) throws Failure {
        return (Objects<T>) get(input, "objects of " + model.id, () -> {
            List<T> objects = List.copyOf(Json.load(input, model));
            Checksum checksum = new Checksum();
            objects.forEach(o -> checksum.add(model.hash(o)));
            return new Objects<>(objects, checksum.count, checksum.sum);
        });
    }

    @FunctionalInterface
    private interface Loader {
        Object load() throws Failure;
    }

    // the objects of a 64 MiB JSON Lines file take a few hundred MB of heap at most; the
    // write task holds them during its request either way
    static final long MAX_BYTES = 64L << 20;
    private static List<Object> key;
    private static Object value;

    /** `kind`'s load of `path`: the one kept, if it was made from this very file. */
    private static synchronized Object get(Path path, String kind, Loader loader)
            throws Failure {
        List<Object> now = identity(path, kind);
        if (now != null && now.equals(key)) {
            return value;
        }
        key = null;
        value = null;  // the old input may go before the new one is loaded
        Object loaded = loader.load();
        if (now != null && (long) now.get(2) <= MAX_BYTES) {
            key = now;
            value = loaded;
        }
        return loaded;
    }

    /** What makes a file the same input: path, size and modification time; null when
     *  unreadable (the loader then fails with its own error). */
    private static List<Object> identity(Path path, String kind) {
        try {
            Path real = path.toAbsolutePath().normalize();
            return List.of(kind, real, Files.size(real), Files.getLastModifiedTime(real));
        } catch (IOException e) {
            return null;
        }
    }
}
