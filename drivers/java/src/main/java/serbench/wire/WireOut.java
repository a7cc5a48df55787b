package serbench.wire;

/** Appends the fields of the hand-coded layouts; one subclass per byte-access technique. */
public abstract class WireOut {
    /** Starts an object appended to `out`. */
    public abstract void begin(serbench.Bytes out);

    /** Ends the object (a method encoding elsewhere first copies it to `out` here). */
    public void end() {}

    public abstract void i8(byte v);

    public abstract void i16(short v);

    public abstract void i32(int v);

    public abstract void i64(long v);

    public abstract void f64(double v);

    public abstract void flag(boolean v);

    /** u32 byte length, then the UTF-8 bytes. */
    public abstract void str(String s);

    /** A list's u32 element count. */
    public final void count(int n) {
        i32(n);
    }

    public void i32s(int[] a) {
        count(a.length);
        for (int v : a) {
            i32(v);
        }
    }

    public void i64s(long[] a) {
        count(a.length);
        for (long v : a) {
            i64(v);
        }
    }

    public void f64s(double[] a) {
        count(a.length);
        for (double v : a) {
            f64(v);
        }
    }
}
