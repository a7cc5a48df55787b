package serbench.methods;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import serbench.Bytes;
import serbench.Depth;
import serbench.model.ModelType;
import serbench.wire.DecodeException;

/**
 * `bson` (PROTOCOL.md section 8.3): one BSON document per object through bson4jackson's
 * generator and parser driven by the generated writeJson/readJson. bson4jackson backpatches
 * each document's length, so a generator lives for one document.
 */
public final class Bson<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("bson", List.of(Depth.MATERIALIZE),
        "Bson.java", Bson::new);

    static final BsonFactory FACTORY = new BsonFactory();

    private final Streams.Out out = new Streams.Out();

    Bson(ModelType<T> model) {
        super(model);
    }

    @Override
    public void encode(T value, Bytes bytes) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out.on(bytes))) {
            model.writeJson(value, g);
        }
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) throws IOException {
        byte[] a = page.array();
        if (len < 5 || (a[off] & 0xff | (a[off + 1] & 0xff) << 8 | (a[off + 2] & 0xff) << 16
                | (a[off + 3] & 0xff) << 24) != len) {
            throw new DecodeException(0, "the document length is not the stored length " + len);
        }
        try (JsonParser p = FACTORY.createParser(a, off, len)) {
            p.nextToken();
            T v = model.readJson(p);
            if (p.nextToken() != null) {
                throw new DecodeException(-1, "trailing bytes after the BSON document");
            }
            return v;
        }
    }
}
