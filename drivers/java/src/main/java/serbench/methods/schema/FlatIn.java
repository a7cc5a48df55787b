package serbench.methods.schema;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import serbench.Hasher;
import serbench.wire.DecodeException;
import serbench.wire.Utf8;

/**
 * The checks of one flatbuffers read, which the 2.0.8 Java runtime has no verifier for.
 * Every access of the generated accessors is bounds-checked by ByteBuffer (the codec turns
 * those failures into decode errors naming the buffer); this context bounds what offsets
 * alone cannot: nesting (a table pointing back at itself) and the total work (offsets that
 * share one big vector many times). A buffer written without sharing spends at most its own
 * length: 4 bytes per table, the length word and elements of every vector and string.
 */
public final class FlatIn {
    private static final int MAX_NESTING = 64;

    private long budget;
    private int nesting;
    private ByteBuffer view;

    /** Starts the read of one buffer (position 0, limit its length). */
    public void reset(ByteBuffer buffer) {
        budget = buffer.limit();
        nesting = 0;
        view = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A scratch view of the buffer that the generated *InByteBuffer accessors position. */
    public ByteBuffer view() {
        return view;
    }

    private void spend(long bytes) {
        budget -= bytes;
        if (budget < 0) {
            throw new DecodeException(-1, "offsets reach more data than the buffer holds "
                + "(shared or overlapping tables, vectors or strings)");
        }
    }

    public void enter() {
        table();
        if (++nesting > MAX_NESTING) {
            throw new DecodeException(-1, "tables nested deeper than " + MAX_NESTING);
        }
    }

    public void exit() {
        nesting--;
    }

    public void table() {
        spend(4);
    }

    public int count(int n, int width) {
        if (n < 0) {
            throw new DecodeException(-1, "a vector of negative length " + n);
        }
        spend(4 + (long) n * width);
        return n;
    }

    /** A required string: missing reads as empty. */
    public String str(String s) {
        if (s == null) {
            return "";
        }
        spend(4 + s.length());
        return s;
    }

    public String optStr(String s) {
        return s == null ? null : str(s);
    }

    /** Folds a required string's bytes in place (null: missing, folds as empty). */
    public void str(ByteBuffer b, Hasher h) {
        if (b == null) {
            h.word(0);
            return;
        }
        int start = b.position();
        int end = b.limit();
        spend(4 + end - start);
        h.word(end - start);
        long high = 0;  // any byte >= 0x80: then the bytes must be checked as UTF-8
        int at = start;
        for (; at + 8 <= end; at += 8) {
            long w = b.getLong(at);
            high |= w;
            h.word(w);
        }
        if (at < end) {
            long w = 0;
            for (int k = end - 1; k >= at; k--) {
                w = (w << 8) | (b.get(k) & 0xff);
            }
            high |= w;
            h.word(w);
        }
        if ((high & 0x8080808080808080L) != 0 && Utf8.invalidAt(b, start, end) >= 0) {
            throw new DecodeException(Utf8.invalidAt(b, start, end), "a string that is not "
                + "UTF-8");
        }
    }

    public void optStr(ByteBuffer b, Hasher h) {
        if (b == null) {
            h.word(0);
        } else {
            h.word(1);
            str(b, h);
        }
    }

    public static <X> X required(X table, String field) {
        if (table == null) {
            throw new DecodeException(-1, "required table " + field + " is missing");
        }
        return table;
    }

    public static int ordinal(byte value, int count, String field) {
        if (value < 0 || value >= count) {
            throw new DecodeException(-1, field + " holds " + value + ", not an enum value 0.."
                + (count - 1));
        }
        return value;
    }
}
