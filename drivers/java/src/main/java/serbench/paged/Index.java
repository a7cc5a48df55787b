package serbench.paged;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import serbench.Failure;
import serbench.Hasher;

/**
 * The index file `<base>.index` (PROTOCOL.md 4.2): a 128-byte little-endian header, then one
 * 16-byte entry (page u64, offset u32, length u32) per object. Every field is checked before
 * anything in it is trusted.
 */
public final class Index {
    public static final byte[] MAGIC = "SERBIDX\n".getBytes(StandardCharsets.US_ASCII);
    public static final int VERSION = 1;
    public static final int HEADER_BYTES = 128;
    public static final int ENTRY_BYTES = 16;
    public static final int MIN_PAGE_SIZE = 64;
    static final VarHandle U32 = MethodHandles.byteArrayViewVarHandle(int[].class,
        ByteOrder.LITTLE_ENDIAN);
    static final VarHandle U64 = MethodHandles.byteArrayViewVarHandle(long[].class,
        ByteOrder.LITTLE_ENDIAN);
    private static final int MODEL_AT = 48;
    private static final int MODEL_WIDTH = 24;
    private static final int METHOD_AT = 72;
    private static final int METHOD_WIDTH = 24;
    private static final int WRITER_AT = 96;
    private static final int WRITER_WIDTH = 8;
    /** The run stamp's 16 bytes; 120 .. 128 stay reserved, zero. */
    private static final int RUN_STAMP_AT = 104;
    public static final int RUN_STAMP_BYTES = 16;

    /** What a reader accepts: method null accepts any (the raw floor); pageSize null any. */
    public record Expect(String model, String method, Integer pageSize) {}

    public final int pageSize;
    public final long count;
    public final long pageCount;
    public final long dataLen;
    public final String model;
    public final String method;
    public final String writer;
    /** Which run wrote the file: the harness's 16 random bytes of one run; zero for none. */
    public final byte[] runStamp;
    private final byte[] bytes;

    private Index(byte[] bytes) {
        this.bytes = bytes;
        pageSize = (int) U32.get(bytes, 12);
        count = (long) U64.get(bytes, 16);
        pageCount = (long) U64.get(bytes, 24);
        dataLen = (long) U64.get(bytes, 32);
        model = idField(bytes, MODEL_AT, MODEL_WIDTH);
        method = idField(bytes, METHOD_AT, METHOD_WIDTH);
        writer = idField(bytes, WRITER_AT, WRITER_WIDTH);
        runStamp = Arrays.copyOfRange(bytes, RUN_STAMP_AT, RUN_STAMP_AT + RUN_STAMP_BYTES);
    }

    /** The run stamp of a file written outside any run: all zero. */
    public static byte[] noRun() {
        return new byte[RUN_STAMP_BYTES];
    }

    public long page(long n) {
        return (long) U64.get(bytes, at(n));
    }

    public int offset(long n) {
        return (int) U32.get(bytes, at(n) + 8);
    }

    public int length(long n) {
        return (int) U32.get(bytes, at(n) + 12);
    }

    private static int at(long n) {
        return HEADER_BYTES + (int) n * ENTRY_BYTES;
    }

    /** The header bytes of a finished file, written by `writer` in run `runStamp`. */
    public static byte[] header(int pageSize, long count, long pageCount, long dataLen,
            long entriesHash, String model, String method, String writer, byte[] runStamp) {
        byte[] b = new byte[HEADER_BYTES];
        System.arraycopy(MAGIC, 0, b, 0, 8);
        U32.set(b, 8, VERSION);
        U32.set(b, 12, pageSize);
        U64.set(b, 16, count);
        U64.set(b, 24, pageCount);
        U64.set(b, 32, dataLen);
        U64.set(b, 40, entriesHash);
        putId(b, MODEL_AT, MODEL_WIDTH, model);
        putId(b, METHOD_AT, METHOD_WIDTH, method);
        putId(b, WRITER_AT, WRITER_WIDTH, writer);
        System.arraycopy(runStamp, 0, b, RUN_STAMP_AT, RUN_STAMP_BYTES);
        return b;
    }

    private static void putId(byte[] b, int at, int width, String id) {
        byte[] ascii = id.getBytes(StandardCharsets.US_ASCII);
        if (ascii.length > width) {
            throw new IllegalArgumentException("id '" + id + "' does not fit the index");
        }
        System.arraycopy(ascii, 0, b, at, ascii.length);
    }

    /** A zero-padded ASCII id, or null when the field is not one. */
    private static String idField(byte[] b, int at, int width) {
        int end = at;
        while (end < at + width && b[end] != 0) {
            if (b[end] < 0) {
                return null;
            }
            end++;
        }
        for (int k = end; k < at + width; k++) {
            if (b[k] != 0) {
                return null;
            }
        }
        return new String(b, at, end - at, StandardCharsets.US_ASCII);
    }

    /** Checks `bytes` (the index file `file`) against the data file and the expectations. */
    public static Index parse(String file, byte[] bytes, String dataFile, long dataLen,
            Expect expect) throws Failure {
        if (bytes.length < HEADER_BYTES) {
            throw corrupt(file, "truncated: " + bytes.length + " bytes, the header alone is "
                + HEADER_BYTES);
        }
        for (int k = 0; k < 8; k++) {
            if (bytes[k] != MAGIC[k]) {
                throw corrupt(file, "bad magic: not a serbench index");
            }
        }
        int version = (int) U32.get(bytes, 8);
        if (version != VERSION) {
            throw wrong(file, "format version " + Integer.toUnsignedString(version)
                + ", this driver reads " + VERSION);
        }
        Index ix = new Index(bytes);
        for (String[] f : new String[][] {{"model", ix.model}, {"method", ix.method},
                {"writer", ix.writer}}) {
            if (f[1] == null) {
                throw corrupt(file, f[0] + " id is not zero-padded ASCII");
            }
        }
        long p = Integer.toUnsignedLong(ix.pageSize);
        if (p < MIN_PAGE_SIZE) {
            throw corrupt(file, "page size " + p + " is below " + MIN_PAGE_SIZE);
        }
        if (expect.pageSize() != null && expect.pageSize() != p) {
            throw wrong(file, "page size " + p + ", the request says " + expect.pageSize());
        }
        if (p > Integer.MAX_VALUE - 8) {
            throw wrong(file, "page size " + p + " is larger than a Java array can hold");
        }
        if (!ix.model.equals(expect.model())) {
            throw wrong(file, "holds model '" + ix.model + "', not '" + expect.model() + "'");
        }
        if (expect.method() != null && !expect.method().equals(ix.method)) {
            throw wrong(file, "written by method '" + ix.method + "', not '" + expect.method()
                + "'");
        }
        long c = ix.count;
        if (c < 0 || c > (Integer.MAX_VALUE - HEADER_BYTES) / ENTRY_BYTES
                || HEADER_BYTES + c * ENTRY_BYTES != bytes.length) {
            throw corrupt(file, bytes.length + " bytes for " + Long.toUnsignedString(c)
                + " entries: truncated or damaged");
        }
        if (dataLen != ix.dataLen) {
            throw corrupt(file, "the data file " + dataFile + " has " + dataLen
                + " bytes, the index says " + Long.toUnsignedString(ix.dataLen)
                + ": truncated or damaged");
        }
        if (ix.pageCount != (ix.dataLen + p - 1) / p) {
            throw corrupt(file, "page count " + Long.toUnsignedString(ix.pageCount)
                + " does not match " + ix.dataLen + " data bytes in pages of " + p);
        }
        ix.checkEntries(file);
        return ix;
    }

    private void checkEntries(String file) throws Failure {
        long p = pageSize;
        Hasher hash = new Hasher();
        long previousEnd = 0;
        for (long n = 0; n < count; n++) {
            long page = page(n);
            long offset = Integer.toUnsignedLong(offset(n));
            long length = Integer.toUnsignedLong(length(n));
            hash.word(page);
            hash.word(offset);
            hash.word(length);
            String problem = problem(page, offset, length, p, previousEnd);
            if (problem != null) {
                throw corrupt(file, "entry " + n + " (page " + Long.toUnsignedString(page)
                    + ", offset " + offset + ", length " + length + "): " + problem);
            }
            previousEnd = page * p + offset + length;
        }
        long want = (long) U64.get(bytes, 40);
        if (hash.finish() != want) {
            throw corrupt(file, "entries hash " + Hasher.hex(hash.finish())
                + " differs from the header's " + Hasher.hex(want) + ": the entries are damaged");
        }
    }

    private String problem(long page, long offset, long length, long p, long previousEnd) {
        if (length == 0) {
            return "length 0";
        }
        if (length > Integer.MAX_VALUE - 8) {
            return "an object of " + length + " bytes is larger than a Java array can hold";
        }
        if (Long.compareUnsigned(page, pageCount) >= 0) {
            return "page beyond the file's " + pageCount + " pages";
        }
        if (length <= p && offset + length > p) {
            return "crosses the end of its page of " + p + " bytes";
        }
        if (length > p && offset != 0) {
            return "an object larger than a page must start at offset 0";
        }
        long pages = Math.max(1, (length + p - 1) / p);
        if (page + pages > pageCount) {
            return "its pages run past the file's " + pageCount + " pages";
        }
        if (page * p + offset < previousEnd) {
            return "out of order or overlapping the previous object";
        }
        if (page * p + offset + length > dataLen) {
            return "ends past the data file's " + dataLen + " bytes";
        }
        return null;
    }

    private static Failure corrupt(String file, String what) {
        return Failure.corrupt(file + ": " + what);
    }

    private static Failure wrong(String file, String what) {
        return new Failure("wrong_file", file + ": " + what);
    }
}
