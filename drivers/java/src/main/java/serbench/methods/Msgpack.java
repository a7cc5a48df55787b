package serbench.methods;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.msgpack.jackson.dataformat.MessagePackFactory;
import serbench.Bytes;
import serbench.Depth;
import serbench.model.ModelType;
import serbench.wire.DecodeException;

/**
 * `msgpack` (PROTOCOL.md section 8.2): structs as maps keyed by field name, through
 * jackson-dataformat-msgpack's streaming generator and parser driven by the generated
 * writeJson/readJson (msgpack-core packs every integer in its smallest form, f64 as float
 * 64).
 */
public final class Msgpack<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("msgpack", List.of(Depth.MATERIALIZE),
        "Msgpack.java", Msgpack::new);

    static final MessagePackFactory FACTORY = new MessagePackFactory();

    private final Streams.Out out = new Streams.Out();

    Msgpack(ModelType<T> model) {
        super(model);
    }

    /** The generator fails on a second root value, so each object gets its own. */
    @Override
    public void encode(T value, Bytes bytes) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out.on(bytes))) {
            model.writeJson(value, g);
        }
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) throws IOException {
        try (JsonParser p = FACTORY.createParser(page.array(), off, len)) {
            p.nextToken();
            T v = model.readJson(p);
            // the parser reports the bytes it consumed as the location's "char" offset, and
            // throws instead of returning null at the end of the input
            long end = p.currentLocation().getCharOffset();
            if (end != len) {
                throw new DecodeException((int) end, (len - end) + " trailing bytes after the "
                    + "msgpack map");
            }
            return v;
        }
    }
}
