package serbench.methods;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import de.undercouch.bson4jackson.BsonFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.tasks.Json;
import serbench.wire.DecodeException;

/**
 * `bson` (PROTOCOL.md section 8.3): one BSON document per object through bson4jackson's
 * generator and parser driven by the generated writeJson/readJson. bson4jackson backpatches
 * each document's length, so a generator lives for one document.
 */
public final class Bson<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("bson", List.of(Depth.MATERIALIZE),
        "Bson.java", Bson::new);

    static final BsonFactory FACTORY = new BsonFactory();

    private final Streams.Out out = new Streams.Out();

    Bson(ModelType<T> model) {
        super(model);
    }

    @Override
    public void encode(T value, Bytes bytes) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out.on(bytes))) {
            model.writeJson(value, g);
        }
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) throws IOException {
        byte[] a = page.array();
        if (len < 5 || (a[off] & 0xff | (a[off + 1] & 0xff) << 8 | (a[off + 2] & 0xff) << 16
                | (a[off + 3] & 0xff) << 24) != len) {
            throw new DecodeException(0, "the document length is not the stored length " + len);
        }
        checkLengths(a, off, len);
        try (JsonParser p = FACTORY.createParser(a, off, len)) {
            p.nextToken();
            T v = model.readJson(p);
            if (p.nextToken() != null) {
                throw new DecodeException(-1, "trailing bytes after the BSON document");
            }
            return v;
        }
    }

    /**
     * Every length of the document against the bytes left (PROTOCOL.md 8.3), before
     * bson4jackson reads it: it sizes a string's buffer by the length it reads, so a hostile
     * length would be an allocation of gigabytes. Iterative, at most MAX_NESTING deep.
     */
    static void checkLengths(byte[] a, int off, int len) throws DecodeException {
        int[] ends = new int[Json.MAX_NESTING];
        int depth = 0;
        ends[0] = off + len;
        int at = off + 4;
        while (true) {
            if (at >= ends[depth]) {
                throw new DecodeException(at - off, "a document runs past its length");
            }
            int type = a[at++] & 0xff;
            if (type == 0) {
                if (at != ends[depth]) {
                    throw new DecodeException(at - off, "a document ends before its length");
                }
                if (depth == 0) {
                    return;
                }
                depth--;
                continue;
            }
            while (at < ends[depth] && a[at] != 0) { // the key
                at++;
            }
            at++;
            switch (type) {
                case 0x01, 0x12 -> at += 8;
                case 0x10 -> at += 4;
                case 0x08 -> at += 1;
                case 0x0A -> { }
                case 0x02 -> {
                    int n = int32(a, at, ends[depth], off);
                    if (n < 1 || n > ends[depth] - at - 4) {
                        throw new DecodeException(at - off, "a string of " + n
                            + " bytes in a document with " + (ends[depth] - at - 4) + " left");
                    }
                    if (a[at + 3 + n] != 0) {
                        throw new DecodeException(at - off, "a string without its final NUL");
                    }
                    at += 4 + n;
                }
                case 0x03, 0x04 -> {
                    int n = int32(a, at, ends[depth], off);
                    if (n < 5 || n > ends[depth] - at) {
                        throw new DecodeException(at - off, "a document of " + n
                            + " bytes inside one with " + (ends[depth] - at) + " left");
                    }
                    if (++depth >= Json.MAX_NESTING) { // the outermost document is level 1
                        throw new DecodeException(at - off, "nested deeper than "
                            + Json.MAX_NESTING + " levels");
                    }
                    ends[depth] = at + n;
                    at += 4;
                }
                default -> throw new DecodeException(at - 1 - off, "element type 0x"
                    + Integer.toHexString(type) + " is not one serbench's BSON uses");
            }
        }
    }

    private static int int32(byte[] a, int at, int end, int off) throws DecodeException {
        if (at + 4 > end) {
            throw new DecodeException(at - off, "a length runs past its document");
        }
        return a[at] & 0xff | (a[at + 1] & 0xff) << 8 | (a[at + 2] & 0xff) << 16
            | (a[at + 3] & 0xff) << 24;
    }
}
