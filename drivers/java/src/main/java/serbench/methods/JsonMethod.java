package serbench.methods;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.wire.DecodeException;

/**
 * `json`: the compact canonical JSON of PROTOCOL.md section 8.1 through jackson-core's
 * streaming generator and parser (the generated writeJson/readJson of the model). One
 * generator writes every object (flushed after each); a parser per object reads the page
 * bytes in place.
 */
public final class JsonMethod<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("json", List.of(Depth.MATERIALIZE),
        "JsonMethod.java", JsonMethod::new);

    /**
     * As the contract writes: no separator between root values, lowercase \\u00xx escapes,
     * characters beyond the BMP as raw 4-byte UTF-8 (not escaped surrogate pairs).
     */
    static final JsonFactory FACTORY = new JsonFactoryBuilder().rootValueSeparator((String) null)
        .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
        .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();

    private final Streams.Out out = new Streams.Out();
    private final JsonGenerator generator;

    JsonMethod(ModelType<T> model) {
        super(model);
        try {
            generator = FACTORY.createGenerator(out, JsonEncoding.UTF8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void encode(T value, Bytes bytes) throws IOException {
        out.on(bytes);
        write(model, value, generator);
    }

    /** One object's text through `g`, flushed to its stream. */
    static <T> void write(ModelType<T> model, T value, JsonGenerator g) throws IOException {
        model.writeJson(value, g);
        g.flush();
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) throws IOException {
        return read(model, page.array(), off, len);
    }

    /** The one JSON value of [off, off + len), which must be the model's object alone. */
    static <T> T read(ModelType<T> model, byte[] a, int off, int len) throws IOException {
        if (len == 0 || a[off] != '{') {
            throw new DecodeException(0, "not a JSON object (nothing may precede it)");
        }
        try (JsonParser p = FACTORY.createParser(a, off, len)) {
            p.nextToken();
            T v = model.readJson(p);
            long end = p.currentLocation().getByteOffset();
            if (end != len) {
                throw new DecodeException((int) end, (len - end) + " trailing bytes after the "
                    + "JSON object");
            }
            return v;
        }
    }
}
