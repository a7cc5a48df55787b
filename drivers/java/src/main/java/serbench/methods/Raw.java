package serbench.methods;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import serbench.Bytes;
import serbench.Depth;
import serbench.Hasher;

/**
 * `raw`: the floor every read is compared with. Same pages, same order, but each object's
 * bytes are folded as checksum words (length, then 8-byte little-endian chunks) undecoded.
 */
public final class Raw implements Codec<Object> {
    public static final MethodSpec SPEC = new MethodSpec("raw", List.of(),
        List.of(MethodSpec.SRC + "Raw.java"), false, false, Map.of(), m -> new Raw());

    @Override
    public void encode(Object value, Bytes out) {
        throw new UnsupportedOperationException("raw writes nothing");
    }

    @Override
    public Object decode(ByteBuffer page, int off, int len) {
        throw new UnsupportedOperationException("raw does not decode");
    }

    @Override
    public void fold(ByteBuffer page, int off, int len, Depth depth, Hasher h) {
        h.bytes(page.array(), off, len);
    }
}
