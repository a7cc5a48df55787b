package serbench.tasks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import serbench.Failure;
import serbench.ModelType;

/** The protocol's JSON (responses) and the loading of JSON Lines inputs (untimed work). */
public final class Json {
    private Json() {}

    /**
     * The deepest a canonical object's JSON text may nest, each object and list one level
     * (PROTOCOL.md 2.1): every reader of every language takes this depth back, so loading
     * refuses anything deeper and no writer ever sees it.
     */
    public static final int MAX_NESTING = 64;

    public static final ObjectMapper MAPPER = new ObjectMapper();
    public static final JsonFactory FACTORY = new JsonFactory();
    // Jackson's own limit (1000) is far above what the binary formats' readers take back
    private static final JsonFactory LOADER = JsonFactory.builder()
        .streamReadConstraints(
            StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
        .build();

    /** What is done with each object of a file as it is read. */
    @FunctionalInterface
    public interface Sink<T, E extends Exception> {
        void accept(T object) throws E;
    }

    /** Every object of a JSON Lines file of `model`: missing is not_found, bad is corrupt. */
    public static <T> List<T> load(Path path, ModelType<T> model) throws Failure {
        List<T> out = new ArrayList<>();
        each(path, model, out::add);
        return out;
    }

    /**
     * Each object of the file in turn, as `load` reads them but holding one at a time: what
     * verifies and encodes a dataset larger than memory. What `sink` throws passes through.
     */
    public static <T, E extends Exception> void each(Path path, ModelType<T> model,
            Sink<T, E> sink) throws Failure, E {
        if (!path.toFile().isFile()) {
            throw Failure.io(path, new NoSuchFileException(path.toString(), null, "no such file"));
        }
        JsonParser p;
        try {
            p = LOADER.createParser(path.toFile());
        } catch (IOException e) {
            throw Failure.io(path, e);
        }
        try {
            for (T object; (object = next(p, path, model)) != null; ) {
                sink.accept(object);
            }
        } finally {
            try {
                p.close();
            } catch (IOException e) {
                // a file only read: closing it loses nothing (and must not hide the sink's error)
            }
        }
    }

    /** The next object, or null at the end; every error of the input is a Failure. */
    private static <T> T next(JsonParser p, Path path, ModelType<T> model) throws Failure {
        int line = 0;
        try {
            JsonToken t = p.nextToken();
            if (t == null) {
                return null;
            }
            line = p.currentLocation().getLineNr();
            if (t != JsonToken.START_OBJECT) {
                throw Failure.corrupt(path + ": line " + line + ": expected an object, found "
                    + t);
            }
            return model.readJson(p);
        } catch (StreamConstraintsException e) {
            throw Failure.corrupt(path + ": line " + line + ": nested more than " + MAX_NESTING
                + " levels deep; canonical objects nest at most " + MAX_NESTING);
        } catch (JsonProcessingException e) {
            throw Failure.corrupt(path + (line > 0 ? ": line " + line : "") + ": "
                + e.getOriginalMessage());
        } catch (IOException e) {
            throw Failure.io(path, e);
        }
    }
}
