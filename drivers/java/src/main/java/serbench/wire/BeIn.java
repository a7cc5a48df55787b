package serbench.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import serbench.Hasher;

/** `handcoded_be`: big-endian fields through a heap ByteBuffer's absolute gets. */
public final class BeIn extends WireIn {
    private ByteBuffer buf;
    private int base;

    @Override
    public void on(ByteBuffer page, int off, int len) {
        if (buf == null || buf.array() != page.array()) {
            buf = ByteBuffer.wrap(page.array()).order(ByteOrder.BIG_ENDIAN);
        }
        base = off;
        start(off, len);
    }

    @Override
    protected int base() {
        return base;
    }

    @Override
    public byte i8() {
        return buf.get(skip(1));
    }

    @Override
    public short i16() {
        return buf.getShort(skip(2));
    }

    @Override
    public int i32() {
        return buf.getInt(skip(4));
    }

    @Override
    public long i64() {
        return buf.getLong(skip(8));
    }

    @Override
    public String str() {
        int n = count();
        int at = skip(n);
        byte[] a = buf.array();
        int bad = Utf8.invalidAt(a, at, at + n);
        if (bad >= 0) {
            throw new DecodeException(bad - base, "invalid UTF-8 in a string");
        }
        return new String(a, at, n, StandardCharsets.UTF_8);
    }

    /** The checksum's words are little-endian chunks of the bytes, whatever the layout. */
    @Override
    public void visitStr(Hasher h) {
        int n = count();
        int at = skip(n);
        byte[] a = buf.array();
        int bad = Utf8.invalidAt(a, at, at + n);
        if (bad >= 0) {
            throw new DecodeException(bad - base, "invalid UTF-8 in a string");
        }
        h.bytes(a, at, n);
    }
}
