package serbench.methods;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageSizeException;
import org.msgpack.core.MessageStringCodingException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.jackson.dataformat.MessagePackFactory;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.wire.DecodeException;

/**
 * `msgpack` (PROTOCOL.md section 8.2): structs as maps keyed by field name, through
 * jackson-dataformat-msgpack's streaming generator and parser driven by the generated
 * writeJson/readJson (msgpack-core packs every integer in its smallest form, f64 as float
 * 64). The parser has no nesting bound of its own (it recurses until the stack overflows), so
 * the reader counts levels itself; msgpack-core's bare exceptions become what is wrong.
 */
public final class Msgpack<T> extends Materialized<T> {
    public static final MethodSpec SPEC = new MethodSpec("msgpack", List.of(Depth.MATERIALIZE),
        List.of(MethodSpec.SRC + "Msgpack.java"), true, false,
        Map.of("structs", "maps with field-name keys"), Msgpack::new);

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
        try {
            return read(page, off, len);
        } catch (MessageInsufficientBufferException e) {
            throw new DecodeException(len, "the object's bytes end inside a value: a map, "
                + "array or string announces more than the " + len + " bytes hold");
        } catch (MessageSizeException e) {
            throw new DecodeException(-1, "a length of " + e.getSize() + " bytes, more than the "
                + "object's " + len + " bytes hold");
        }
    }

    private T read(ByteBuffer page, int off, int len) throws IOException {
        try (Watching p = new Watching(FACTORY.createParser(page.array(), off, len))) {
            p.nextToken();
            T v = model.readJson(p);
            if (p.replaced) {
                requireUtf8(page.array(), off, len);
            }
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

    /**
     * The parser decodes str payloads with replacement: bytes that are not UTF-8 come out as
     * U+FFFD and would read as other text. A string holding U+FFFD (rare: it may be genuine)
     * sends the object's bytes through msgpack-core's strict decoding. Every map and array is
     * one level of nesting, refused past PROTOCOL.md 2.1's 64 before it is read.
     */
    static final class Watching extends JsonParserDelegate {
        boolean replaced;
        private int nesting;

        Watching(JsonParser p) {
            super(p);
        }

        @Override
        public JsonToken nextToken() throws IOException {
            JsonToken t = delegate.nextToken();
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                if (++nesting > Nesting.MAX) {
                    throw new DecodeException((int) delegate.currentLocation().getCharOffset(),
                        Nesting.TOO_DEEP);
                }
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                nesting--;
            }
            return t;
        }

        @Override
        public String getText() throws IOException {
            String s = delegate.getText();
            replaced |= s != null && s.indexOf('\uFFFD') >= 0;
            return s;
        }
    }

    private static final MessagePack.UnpackerConfig STRICT = new MessagePack.UnpackerConfig()
        .withActionOnMalformedString(CodingErrorAction.REPORT)
        .withActionOnUnmappableString(CodingErrorAction.REPORT);

    /** Every str payload of the object decoded strictly; the first that is not UTF-8 refused. */
    static void requireUtf8(byte[] a, int off, int len) throws IOException {
        try (MessageUnpacker u = STRICT.newUnpacker(a, off, len)) {
            while (u.hasNext()) {
                strictValue(u);
            }
        } catch (MessageStringCodingException e) {
            throw new DecodeException(-1, "a string that is not UTF-8: " + e.getMessage());
        }
    }

    private static void strictValue(MessageUnpacker u) throws IOException {
        switch (u.getNextFormat().getValueType()) {
            case STRING -> u.unpackString();
            case ARRAY -> {
                for (int n = u.unpackArrayHeader(); n > 0; n--) {
                    strictValue(u);
                }
            }
            case MAP -> {
                for (int n = u.unpackMapHeader(); n > 0; n--) {
                    strictValue(u);
                    strictValue(u);
                }
            }
            default -> u.skipValue();
        }
    }
}
