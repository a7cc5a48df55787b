package serbench.wire;

import serbench.Hasher;

/**
 * A bounds-checked cursor over one stored object of a hand-coded layout. Every length is
 * checked against the bytes left, bools must be 0 or 1, strings valid UTF-8, and nothing may
 * follow the object: corrupt bytes give a DecodeException, never an out-of-bounds read.
 */
public abstract class WireIn {
    /** Tweets nest through quoted and retweeted statuses; bounded against corrupt files. */
    private static final int MAX_NESTING = 64;

    protected int pos;
    protected int end;
    private int nesting;

    /** Starts on the object at [off, off + len) of the current buffer. */
    protected final void start(int off, int len) {
        pos = off;
        end = off + len;
        nesting = 0;
    }

    protected abstract int base();

    /** Starts on the object at [off, off + len) of the page buffer. */
    public abstract void on(java.nio.ByteBuffer page, int off, int len);

    /** Moves past `n` bytes, which must be there; returns where they start. */
    protected final int skip(int n) {
        if (n < 0 || n > end - pos) {
            throw new DecodeException(pos - base(), "truncated: " + n + " bytes needed, "
                + (end - pos) + " left");
        }
        int at = pos;
        pos += n;
        return at;
    }

    public abstract byte i8();

    public abstract short i16();

    public abstract int i32();

    public abstract long i64();

    public final double f64() {
        return Double.longBitsToDouble(i64());
    }

    public final long f64Bits() {
        return i64();
    }

    public final boolean flag() {
        byte b = i8();
        if (b == 0 || b == 1) {
            return b == 1;
        }
        throw new DecodeException(pos - 1 - base(), "bool byte " + (b & 0xff) + " is not 0 or 1");
    }

    public final int ordinal(int symbols) {
        int b = i8() & 0xff;
        if (b >= symbols) {
            throw new DecodeException(pos - 1 - base(), "enum ordinal " + b + " of " + symbols
                + " symbols");
        }
        return b;
    }

    /** A u32 count or length, which cannot exceed the bytes left (every element takes one). */
    public final int count() {
        return count(1);
    }

    /** A u32 count of elements `width` bytes wide, which must all fit in the bytes left. */
    public final int count(int width) {
        long n = i32() & 0xffffffffL;
        if (n * width > end - pos) {
            throw new DecodeException(pos - 4 - base(), "length " + n + " exceeds the "
                + (end - pos) + " bytes left");
        }
        return (int) n;
    }

    public abstract String str();

    public abstract void visitStr(Hasher h);

    public int[] i32s() {
        int[] a = new int[count(4)];
        for (int i = 0; i < a.length; i++) {
            a[i] = i32();
        }
        return a;
    }

    public long[] i64s() {
        long[] a = new long[count(8)];
        for (int i = 0; i < a.length; i++) {
            a[i] = i64();
        }
        return a;
    }

    public double[] f64s() {
        double[] a = new double[count(8)];
        for (int i = 0; i < a.length; i++) {
            a[i] = f64();
        }
        return a;
    }

    public final void enter() {
        if (++nesting > MAX_NESTING) {
            throw new DecodeException(pos - base(), "nested deeper than " + MAX_NESTING
                + " levels");
        }
    }

    public final void exit() {
        nesting--;
    }

    /** The object must end exactly here. */
    public final void finish() {
        if (pos != end) {
            throw new DecodeException(pos - base(), (end - pos) + " trailing bytes after the object");
        }
    }
}
