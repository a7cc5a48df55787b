package serbench.wire;

import static serbench.wire.UnsafeAccess.BYTES;
import static serbench.wire.UnsafeAccess.DOUBLES;
import static serbench.wire.UnsafeAccess.INTS;
import static serbench.wire.UnsafeAccess.LONGS;
import static serbench.wire.UnsafeAccess.U;

import java.nio.charset.StandardCharsets;
import serbench.Bytes;

/**
 * `handcoded_unsafe`: the shared little-endian layout written with sun.misc.Unsafe stores
 * into the byte array (room is reserved first, so no store leaves the array), and primitive
 * lists by Unsafe.copyMemory.
 */
public final class UnsafeOut extends WireOut {
    private Bytes out;

    @Override
    public void begin(Bytes out) {
        this.out = out;
    }

    private long grow(int n) {
        out.reserve(n);
        int at = out.length;
        out.length = at + n;
        return BYTES + at;
    }

    @Override
    public void i8(byte v) {
        long at = grow(1);
        U.putByte(out.array, at, v);
    }

    @Override
    public void i16(short v) {
        long at = grow(2);
        U.putShort(out.array, at, v);
    }

    @Override
    public void i32(int v) {
        long at = grow(4);
        U.putInt(out.array, at, v);
    }

    @Override
    public void i64(long v) {
        long at = grow(8);
        U.putLong(out.array, at, v);
    }

    @Override
    public void f64(double v) {
        long at = grow(8);
        U.putDouble(out.array, at, v);
    }

    @Override
    public void flag(boolean v) {
        i8(v ? (byte) 1 : 0);
    }

    @Override
    public void str(String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        long at = grow(4 + utf8.length);
        U.putInt(out.array, at, utf8.length);
        U.copyMemory(utf8, BYTES, out.array, at + 4, utf8.length);
    }

    @Override
    public void i32s(int[] a) {
        long at = grow(4 + 4 * a.length);
        U.putInt(out.array, at, a.length);
        U.copyMemory(a, INTS, out.array, at + 4, 4L * a.length);
    }

    @Override
    public void i64s(long[] a) {
        long at = grow(4 + 8 * a.length);
        U.putInt(out.array, at, a.length);
        U.copyMemory(a, LONGS, out.array, at + 4, 8L * a.length);
    }

    @Override
    public void f64s(double[] a) {
        long at = grow(4 + 8 * a.length);
        U.putInt(out.array, at, a.length);
        U.copyMemory(a, DOUBLES, out.array, at + 4, 8L * a.length);
    }
}
