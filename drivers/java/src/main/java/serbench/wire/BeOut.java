package serbench.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import serbench.Bytes;

/** `handcoded_be`: the shared field order, big-endian, through a heap ByteBuffer's puts. */
public final class BeOut extends WireOut {
    private Bytes out;
    private ByteBuffer buf;

    @Override
    public void begin(Bytes out) {
        this.out = out;
        wrap();
    }

    private void wrap() {
        buf = ByteBuffer.wrap(out.array).order(ByteOrder.BIG_ENDIAN);
    }

    private int grow(int n) {
        out.reserve(n);
        if (buf.array() != out.array) {
            wrap();
        }
        int at = out.length;
        out.length = at + n;
        return at;
    }

    @Override
    public void i8(byte v) {
        int at = grow(1);
        buf.put(at, v);
    }

    @Override
    public void i16(short v) {
        int at = grow(2);
        buf.putShort(at, v);
    }

    @Override
    public void i32(int v) {
        int at = grow(4);
        buf.putInt(at, v);
    }

    @Override
    public void i64(long v) {
        int at = grow(8);
        buf.putLong(at, v);
    }

    @Override
    public void f64(double v) {
        int at = grow(8);
        buf.putDouble(at, v);
    }

    @Override
    public void flag(boolean v) {
        i8(v ? (byte) 1 : 0);
    }

    @Override
    public void str(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        int at = grow(4 + utf8.length);
        buf.putInt(at, utf8.length);
        buf.put(at + 4, utf8);
    }
}
