package serbench.wire;

import java.nio.charset.StandardCharsets;
import serbench.Hasher;

/** `handcoded`: little-endian fields from a byte array through VarHandle views. */
public final class LeIn extends WireIn {
    private byte[] a;
    private int base;

    @Override
    public void on(java.nio.ByteBuffer page, int off, int len) {
        on(page.array(), off, len);
    }

    /** Starts on the object at [off, off + len) of `a`. */
    public void on(byte[] a, int off, int len) {
        this.a = a;
        this.base = off;
        start(off, len);
    }

    @Override
    protected int base() {
        return base;
    }

    @Override
    public byte i8() {
        return a[skip(1)];
    }

    @Override
    public short i16() {
        return (short) LeOut.I16.get(a, skip(2));
    }

    @Override
    public int i32() {
        return (int) LeOut.I32.get(a, skip(4));
    }

    @Override
    public long i64() {
        return (long) LeOut.I64.get(a, skip(8));
    }

    @Override
    public String str() {
        int n = count();
        int at = skip(n);
        checkUtf8(at, n);
        return new String(a, at, n, StandardCharsets.UTF_8);
    }

    private void checkUtf8(int at, int n) {
        for (int i = at; i < at + n; i++) {
            if (a[i] < 0) {
                int bad = Utf8.invalidAt(a, i, at + n);
                if (bad >= 0) {
                    throw new DecodeException(bad - base, "invalid UTF-8 in a string");
                }
                return;
            }
        }
    }

    /** Folds the string's words straight from the bytes; UTF-8 is checked only if not ASCII. */
    @Override
    public void visitStr(Hasher h) {
        int n = count();
        int at = skip(n);
        h.word(n);
        long high = 0;
        int i = at;
        int stop = at + n;
        for (; i + 8 <= stop; i += 8) {
            long w = (long) LeOut.I64.get(a, i);
            high |= w;
            h.word(w);
        }
        if (i < stop) {
            int tail = stop - i;
            long w = i + 8 <= a.length
                ? (long) LeOut.I64.get(a, i) & (-1L >>> (64 - 8 * tail))
                : tailWord(i, tail);
            high |= w;
            h.word(w);
        }
        if ((high & 0x8080808080808080L) != 0) {
            int bad = Utf8.invalidAt(a, at, stop);
            if (bad >= 0) {
                throw new DecodeException(bad - base, "invalid UTF-8 in a string");
            }
        }
    }

    private long tailWord(int at, int len) {
        long w = 0;
        for (int k = at + len - 1; k >= at; k--) {
            w = (w << 8) | (a[k] & 0xff);
        }
        return w;
    }

    @Override
    public double[] f64s() {
        double[] out = new double[count(8)];
        int at = skip(out.length * 8);
        for (int i = 0; i < out.length; i++) {
            out[i] = (double) LeOut.F64.get(a, at + 8 * i);
        }
        return out;
    }

    @Override
    public int[] i32s() {
        int[] out = new int[count(4)];
        int at = skip(out.length * 4);
        for (int i = 0; i < out.length; i++) {
            out[i] = (int) LeOut.I32.get(a, at + 4 * i);
        }
        return out;
    }

    @Override
    public long[] i64s() {
        long[] out = new long[count(8)];
        int at = skip(out.length * 8);
        for (int i = 0; i < out.length; i++) {
            out[i] = (long) LeOut.I64.get(a, at + 8 * i);
        }
        return out;
    }
}
