package serbench.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import serbench.Bytes;

/** `handcoded`: little-endian fields into a byte array through VarHandle views. */
public final class LeOut extends WireOut {
    static final VarHandle I16 = view(short[].class);
    static final VarHandle I32 = view(int[].class);
    static final VarHandle I64 = view(long[].class);
    static final VarHandle F64 = view(double[].class);

    private Bytes out;

    static VarHandle view(Class<?> arrayType) {
        return MethodHandles.byteArrayViewVarHandle(arrayType, ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public void begin(Bytes out) {
        this.out = out;
    }

    private int grow(int n) {
        out.reserve(n);
        int at = out.length;
        out.length = at + n;
        return at;
    }

    @Override
    public void i8(byte v) {
        int at = grow(1);
        out.array[at] = v;
    }

    @Override
    public void i16(short v) {
        int at = grow(2); // before reading out.array, which grow may replace
        I16.set(out.array, at, v);
    }

    @Override
    public void i32(int v) {
        int at = grow(4); // before reading out.array, which grow may replace
        I32.set(out.array, at, v);
    }

    @Override
    public void i64(long v) {
        int at = grow(8); // before reading out.array, which grow may replace
        I64.set(out.array, at, v);
    }

    @Override
    public void f64(double v) {
        int at = grow(8); // before reading out.array, which grow may replace
        F64.set(out.array, at, v);
    }

    @Override
    public void flag(boolean v) {
        i8(v ? (byte) 1 : 0);
    }

    @Override
    @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int) copies ASCII chars as bytes
    public void str(String s) {
        int n = s.length();
        if (Utf8.isAscii(s)) {
            int at = grow(4 + n);
            I32.set(out.array, at, n);
            s.getBytes(0, n, out.array, at + 4);
        } else {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            i32(utf8.length);
            out.append(utf8, 0, utf8.length);
        }
    }
}
