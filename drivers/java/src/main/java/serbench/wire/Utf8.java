package serbench.wire;

/** Strict UTF-8 validation (overlongs, surrogates, range) and the ASCII fast path. */
public final class Utf8 {
    private Utf8() {}

    /** True when every char is ASCII, so the chars are the UTF-8 bytes. */
    public static boolean isAscii(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** Index of the first invalid byte in a[from, to), or -1 when the range is valid UTF-8. */
    public static int invalidAt(byte[] a, int from, int to) {
        int i = from;
        while (i < to) {
            int b = a[i] & 0xff;
            if (b < 0x80) {
                i++;
                continue;
            }
            int need;
            int min;
            if (b >= 0xc2 && b <= 0xdf) {
                need = 1;
                min = 0x80;
            } else if (b >= 0xe0 && b <= 0xef) {
                need = 2;
                min = 0x800;
            } else if (b >= 0xf0 && b <= 0xf4) {
                need = 3;
                min = 0x10000;
            } else {
                return i;
            }
            if (i + need >= to) {
                return i;
            }
            int cp = b & (0x3f >> need);
            for (int k = 1; k <= need; k++) {
                int c = a[i + k] & 0xff;
                if ((c & 0xc0) != 0x80) {
                    return i;
                }
                cp = (cp << 6) | (c & 0x3f);
            }
            if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
                return i;
            }
            i += need + 1;
        }
        return -1;
    }

    /** The same over a buffer's absolute positions [from, to) (strings read in place). */
    public static int invalidAt(java.nio.ByteBuffer b, int from, int to) {
        if (b.hasArray()) {
            int base = b.arrayOffset();
            int bad = invalidAt(b.array(), base + from, base + to);
            return bad < 0 ? -1 : bad - base;
        }
        byte[] copy = new byte[to - from];
        b.get(from, copy);
        int bad = invalidAt(copy, 0, copy.length);
        return bad < 0 ? -1 : from + bad;
    }
}
