package serbench.methods;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.wire.DecodeException;

/**
 * `json_gzip`: the `json` text of each object as one gzip member (RFC 1952): the fixed
 * 10-byte header, raw deflate at level 6 (the JDK's zlib), CRC-32 and ISIZE. The JSON
 * buffer, Deflater, Inflater and CRC are reused from object to object.
 */
public final class JsonGzip<T> extends Materialized<T> {
    public static final int LEVEL = 6;
    public static final MethodSpec SPEC = new MethodSpec("json_gzip", List.of(Depth.MATERIALIZE),
        List.of(MethodSpec.SRC + "JsonGzip.java", MethodSpec.SRC + "JsonMethod.java"), true, false,
        Map.of("gzip_level", LEVEL, "gzip_backend", "zlib"), JsonGzip::new);

    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};
    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;
    /** Deflate expands at most ~1032x: bounds what a corrupt ISIZE can make us reserve. */
    private static final long MAX_RATIO = 1032;

    private final Bytes json = new Bytes(1 << 16);
    private final Streams.Out out = new Streams.Out();
    private final JsonGenerator generator;
    private final Deflater deflater = new Deflater(LEVEL, true);
    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32();

    JsonGzip(ModelType<T> model) {
        super(model);
        try {
            generator = JsonMethod.FACTORY.createGenerator(out.on(json), JsonEncoding.UTF8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void encode(T value, Bytes bytes) throws IOException {
        json.length = 0;
        JsonMethod.write(model, value, generator);
        bytes.append(HEADER, 0, HEADER.length);
        deflater.reset();
        deflater.setInput(json.array, 0, json.length);
        deflater.finish();
        while (!deflater.finished()) {
            bytes.reserve(json.length / 2 + 64);
            bytes.length += deflater.deflate(bytes.array, bytes.length,
                bytes.array.length - bytes.length);
        }
        crc.reset();
        crc.update(json.array, 0, json.length);
        bytes.reserve(8);
        le32(bytes.array, bytes.length, (int) crc.getValue());
        le32(bytes.array, bytes.length + 4, json.length);
        bytes.length += 8;
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) throws IOException {
        inflate(page.array(), off, len);
        return JsonMethod.read(model, json.array, 0, json.length);
    }

    /** The member's JSON text into `json`, its header, CRC-32 and size checked. */
    private void inflate(byte[] a, int off, int len) {
        int end = off + len;
        int at = header(a, off, end);
        if (end - at < 8) {
            throw new DecodeException(len, "the gzip member is truncated");
        }
        long size = Integer.toUnsignedLong(le32(a, end - 4));
        if (size > (long) (end - at) * MAX_RATIO || size > Integer.MAX_VALUE - 8) {
            throw new DecodeException(len - 4, "gzip ISIZE " + size + " is impossible");
        }
        json.length = 0;
        json.reserve((int) size);
        inflater.reset();
        inflater.setInput(a, at, end - 8 - at);
        try {
            json.length = inflater.inflate(json.array, 0, (int) size);
            if (!inflater.finished() && inflater.inflate(new byte[1]) > 0) {
                throw new DecodeException(-1, "the gzip data is longer than its ISIZE " + size);
            }
        } catch (DataFormatException e) {
            throw new DecodeException(-1, "corrupt deflate data: " + e.getMessage());
        }
        if (!inflater.finished()) {
            throw new DecodeException(-1, "the deflate stream does not end before the trailer");
        }
        if (inflater.getRemaining() != 0) {
            throw new DecodeException(len - 8 - inflater.getRemaining(),
                "bytes between the deflate stream and the trailer");
        }
        if (json.length != size) {
            throw new DecodeException(len - 4, "ISIZE " + size + ", inflated " + json.length);
        }
        crc.reset();
        crc.update(json.array, 0, json.length);
        if ((int) crc.getValue() != le32(a, end - 8)) {
            throw new DecodeException(len - 8, "gzip CRC-32 mismatch");
        }
    }

    /** Checks the header (any flags) and returns where the deflate data starts. */
    private static int header(byte[] a, int off, int end) {
        if (end - off < 10 || a[off] != 0x1f || a[off + 1] != (byte) 0x8b || a[off + 2] != 8) {
            throw new DecodeException(0, "not a gzip member (magic 1f 8b, method 8)");
        }
        int flags = a[off + 3] & 0xff;
        if ((flags & 0xe0) != 0) {
            throw new DecodeException(3, "reserved gzip flags set");
        }
        int at = off + 10;
        if ((flags & FEXTRA) != 0) {
            need(at, 2, end, off);
            at += 2 + (a[at] & 0xff | (a[at + 1] & 0xff) << 8);
            need(at, 0, end, off);
        }
        for (int flag : new int[] {FNAME, FCOMMENT}) {
            if ((flags & flag) != 0) {
                while (true) {
                    need(at, 1, end, off);
                    if (a[at++] == 0) {
                        break;
                    }
                }
            }
        }
        if ((flags & FHCRC) != 0) {
            at += 2;
            need(at, 0, end, off);
        }
        return at;
    }

    private static void need(int at, int n, int end, int off) {
        if (at + n > end) {
            throw new DecodeException(at - off, "the gzip header is truncated");
        }
    }

    private static int le32(byte[] a, int at) {
        return a[at] & 0xff | (a[at + 1] & 0xff) << 8 | (a[at + 2] & 0xff) << 16
            | (a[at + 3] & 0xff) << 24;
    }

    private static void le32(byte[] a, int at, int v) {
        a[at] = (byte) v;
        a[at + 1] = (byte) (v >>> 8);
        a[at + 2] = (byte) (v >>> 16);
        a[at + 3] = (byte) (v >>> 24);
    }
}
