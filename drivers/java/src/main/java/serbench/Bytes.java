package serbench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** A growable byte array, reused from object to object; plus little-endian array views. */
public final class Bytes {
    private static final VarHandle LE64 =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    public byte[] array;
    public int length;

    public Bytes(int capacity) {
        array = new byte[Math.max(capacity, 16)];
    }

    /** Makes room for `more` bytes after `length`. */
    public void reserve(int more) {
        long need = (long) length + more;
        if (need > array.length) {
            if (need > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("object larger than 2 GiB");
            }
            array = Arrays.copyOf(array, (int) Math.max(need, Math.min(array.length * 2L,
                Integer.MAX_VALUE - 8)));
        }
    }

    public void append(byte[] src, int off, int len) {
        reserve(len);
        System.arraycopy(src, off, array, length, len);
        length += len;
    }

    /** Drops the first `n` bytes, keeping the rest at the start. */
    public void dropFront(int n) {
        System.arraycopy(array, n, array, 0, length - n);
        length -= n;
    }

    public static long le64(byte[] a, int at) {
        return (long) LE64.get(a, at);
    }
}
