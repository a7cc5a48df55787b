package serbench.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import serbench.Bytes;

/**
 * `handcoded_direct`: the object is built in a reused direct ByteBuffer in native order (the
 * shared little-endian layout on little-endian machines), primitive lists by bulk copies
 * through buffer views, then copied to the output once.
 */
public final class DirectOut extends WireOut {
    private ByteBuffer buf = ByteBuffer.allocateDirect(1 << 16).order(ByteOrder.nativeOrder());
    private Bytes out;

    @Override
    public void begin(Bytes out) {
        this.out = out;
        buf.clear();
    }

    @Override
    public void end() {
        int n = buf.position();
        out.reserve(n);
        buf.get(0, out.array, out.length, n);
        out.length += n;
    }

    private void room(int n) {
        if (buf.remaining() < n) {
            long need = (long) buf.position() + n;
            if (need > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("object larger than 2 GiB");
            }
            ByteBuffer bigger = ByteBuffer.allocateDirect((int) Math.max(need,
                Math.min(buf.capacity() * 2L, Integer.MAX_VALUE - 8))).order(ByteOrder.nativeOrder());
            buf.flip();
            bigger.put(buf);
            buf = bigger;
        }
    }

    @Override
    public void i8(byte v) {
        room(1);
        buf.put(v);
    }

    @Override
    public void i16(short v) {
        room(2);
        buf.putShort(v);
    }

    @Override
    public void i32(int v) {
        room(4);
        buf.putInt(v);
    }

    @Override
    public void i64(long v) {
        room(8);
        buf.putLong(v);
    }

    @Override
    public void f64(double v) {
        room(8);
        buf.putDouble(v);
    }

    @Override
    public void flag(boolean v) {
        i8(v ? (byte) 1 : 0);
    }

    @Override
    public void str(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        room(4 + utf8.length);
        buf.putInt(utf8.length);
        buf.put(utf8);
    }

    @Override
    public void i32s(int[] a) {
        room(4 + 4 * a.length);
        buf.putInt(a.length);
        buf.asIntBuffer().put(a);
        buf.position(buf.position() + 4 * a.length);
    }

    @Override
    public void i64s(long[] a) {
        room(4 + 8 * a.length);
        buf.putInt(a.length);
        buf.asLongBuffer().put(a);
        buf.position(buf.position() + 8 * a.length);
    }

    @Override
    public void f64s(double[] a) {
        room(4 + 8 * a.length);
        buf.putInt(a.length);
        buf.asDoubleBuffer().put(a);
        buf.position(buf.position() + 8 * a.length);
    }
}
