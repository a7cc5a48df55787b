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
import serbench.model.ModelType;

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

    /** Every object of a JSON Lines file of `model`: missing is not_found, bad is corrupt. */
    public static <T> List<T> load(Path path, ModelType<T> model) throws Failure {
        List<T> out = new ArrayList<>();
        if (!path.toFile().isFile()) {
            throw Failure.io(path, new NoSuchFileException(path.toString(), null, "no such file"));
        }
        try (JsonParser p = LOADER.createParser(path.toFile())) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t != JsonToken.START_OBJECT) {
                    throw Failure.corrupt(path + ": line " + p.currentLocation().getLineNr()
                        + ": expected an object, found " + t);
                }
                int line = p.currentLocation().getLineNr();
                try {
                    out.add(model.readJson(p));
                } catch (StreamConstraintsException e) {
                    throw Failure.corrupt(path + ": line " + line + ": nested more than "
                        + MAX_NESTING + " levels deep; canonical objects nest at most "
                        + MAX_NESTING);
                } catch (JsonProcessingException e) {
                    throw Failure.corrupt(path + ": line " + line + ": " + e.getOriginalMessage());
                }
            }
        } catch (JsonProcessingException e) {
            throw Failure.corrupt(path + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw Failure.io(path, e);
        }
        return out;
    }
}
