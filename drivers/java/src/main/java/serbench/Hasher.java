package serbench;

import java.nio.charset.StandardCharsets;

/**
 * The logical checksum's word fold (docs/checksum.md): FNV-style, seed
 * 0xcbf29ce484222325, per word h = (h ^ w) * 0x100000001b3, wrapping.
 */
public final class Hasher {
    public static final long SEED = 0xcbf29ce484222325L;
    public static final long PRIME = 0x100000001b3L;

    private long h = SEED;

    public void word(long w) {
        h = (h ^ w) * PRIME;
    }

    public void flag(boolean b) {
        word(b ? 1 : 0);
    }

    public void f64(double d) {
        word(Double.doubleToRawLongBits(d));
    }

    /** A string's UTF-8 byte length, then its bytes in zero-padded little-endian 8-byte words. */
    public void str(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                bytes(utf8, 0, utf8.length);
                return;
            }
        }
        // ASCII (the common case): chars are the bytes, no encoding needed
        word(n);
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long w = 0;
            for (int k = 7; k >= 0; k--) {
                w = (w << 8) | s.charAt(i + k);
            }
            word(w);
        }
        if (i < n) {
            long w = 0;
            for (int k = n - 1; k >= i; k--) {
                w = (w << 8) | s.charAt(k);
            }
            word(w);
        }
    }

    /** Bytes folded exactly like a string of them. */
    public void bytes(byte[] a, int off, int len) {
        word(len);
        int i = off;
        int end = off + len;
        for (; i + 8 <= end; i += 8) {
            word(Bytes.le64(a, i));
        }
        if (i < end) {
            word(tail(a, i, end - i));
        }
    }

    /** `len` (1..7) bytes at `at` as a zero-padded little-endian word. */
    static long tail(byte[] a, int at, int len) {
        long w = 0;
        for (int k = at + len - 1; k >= at; k--) {
            w = (w << 8) | (a[k] & 0xff);
        }
        return w;
    }

    public long finish() {
        return h;
    }

    /** The sequence fold of object hashes, and the hex form the protocol carries. */
    public static String hex(long v) {
        return String.format("%016x", v);
    }
}
