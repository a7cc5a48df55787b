package serbench.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import serbench.Hasher;

/**
 * `handcoded_direct`: fields from a direct page buffer in native order by absolute gets;
 * primitive lists by bulk copies through buffer views; strings copied once to a reused array.
 */
public final class DirectIn extends WireIn {
    private ByteBuffer page;
    private int base;
    private byte[] chars = new byte[256];

    @Override
    public void on(ByteBuffer page, int off, int len) {
        if (page.order() != ByteOrder.nativeOrder()) {
            throw new IllegalArgumentException("handcoded_direct reads native-order pages");
        }
        this.page = page;
        base = off;
        start(off, len);
    }

    @Override
    protected int base() {
        return base;
    }

    @Override
    public byte i8() {
        return page.get(skip(1));
    }

    @Override
    public short i16() {
        return page.getShort(skip(2));
    }

    @Override
    public int i32() {
        return page.getInt(skip(4));
    }

    @Override
    public long i64() {
        return page.getLong(skip(8));
    }

    /** The string's bytes in `chars`, checked as UTF-8; returns their length. */
    private int utf8() {
        int n = count();
        int at = skip(n);
        if (chars.length < n) {
            chars = new byte[Math.max(n, chars.length * 2)];
        }
        page.get(at, chars, 0, n);
        int bad = Utf8.invalidAt(chars, 0, n);
        if (bad >= 0) {
            throw new DecodeException(at + bad - base, "invalid UTF-8 in a string");
        }
        return n;
    }

    @Override
    public String str() {
        int n = utf8();
        return new String(chars, 0, n, StandardCharsets.UTF_8);
    }

    @Override
    public void visitStr(Hasher h) {
        int n = utf8();
        h.bytes(chars, 0, n);
    }

    @Override
    public int[] i32s() {
        int[] a = new int[count(4)];
        page.slice(skip(4 * a.length), 4 * a.length).order(page.order()).asIntBuffer().get(a);
        return a;
    }

    @Override
    public long[] i64s() {
        long[] a = new long[count(8)];
        page.slice(skip(8 * a.length), 8 * a.length).order(page.order()).asLongBuffer().get(a);
        return a;
    }

    @Override
    public double[] f64s() {
        double[] a = new double[count(8)];
        page.slice(skip(8 * a.length), 8 * a.length).order(page.order()).asDoubleBuffer()
            .get(a);
        return a;
    }
}
