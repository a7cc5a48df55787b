package serbench.wire;

import static serbench.wire.UnsafeAccess.BYTES;
import static serbench.wire.UnsafeAccess.DOUBLES;
import static serbench.wire.UnsafeAccess.INTS;
import static serbench.wire.UnsafeAccess.LONGS;
import static serbench.wire.UnsafeAccess.U;

import java.nio.charset.StandardCharsets;
import serbench.Hasher;

/**
 * `handcoded_unsafe`: sun.misc.Unsafe loads from the heap page array. Every load is behind
 * WireIn.skip's bounds check against the object's extent, so corrupt input cannot make a
 * load leave the array.
 */
public final class UnsafeIn extends WireIn {
    private byte[] a;
    private int base;

    @Override
    public void on(java.nio.ByteBuffer page, int off, int len) {
        a = page.array();
        base = off;
        start(off, len);
    }

    @Override
    protected int base() {
        return base;
    }

    @Override
    public byte i8() {
        return U.getByte(a, BYTES + skip(1));
    }

    @Override
    public short i16() {
        return U.getShort(a, BYTES + skip(2));
    }

    @Override
    public int i32() {
        return U.getInt(a, BYTES + skip(4));
    }

    @Override
    public long i64() {
        return U.getLong(a, BYTES + skip(8));
    }

    private int utf8(int n) {
        int at = skip(n);
        int bad = Utf8.invalidAt(a, at, at + n);
        if (bad >= 0) {
            throw new DecodeException(bad - base, "invalid UTF-8 in a string");
        }
        return at;
    }

    @Override
    public String str() {
        int n = count();
        return new String(a, utf8(n), n, StandardCharsets.UTF_8);
    }

    @Override
    public void visitStr(Hasher h) {
        int n = count();
        h.bytes(a, utf8(n), n);
    }

    @Override
    public int[] i32s() {
        int[] out = new int[count(4)];
        U.copyMemory(a, BYTES + skip(4 * out.length), out, INTS,
            4L * out.length);
        return out;
    }

    @Override
    public long[] i64s() {
        long[] out = new long[count(8)];
        U.copyMemory(a, BYTES + skip(8 * out.length), out, LONGS,
            8L * out.length);
        return out;
    }

    @Override
    public double[] f64s() {
        double[] out = new double[count(8)];
        U.copyMemory(a, BYTES + skip(8 * out.length), out, DOUBLES,
            8L * out.length);
        return out;
    }
}
