package serbench.net;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import serbench.Failure;
import serbench.paged.Index;
import serbench.tasks.Reads;

/**
 * Network pages (PROTOCOL.md 10.3): a pages frame is `u32 count`, a `u32` zero (so entries
 * and pages keep 8-byte alignment), `count` 16-byte entries (page relative to the frame's
 * first storage page, offset, length) and whole storage pages laid out as in a paged file.
 * This class holds the layout and the receiver's check of every entry against the frame.
 */
public final class NetPages {
    private NetPages() {}

    /** The entry count and the zero word before the entries. */
    public static final int HEAD = 8;
    /** The default network page: the studies' 20 MiB. */
    public static final long DEFAULT_NET_PAGE = 20L << 20;

    /** Sees one checked object: its entry and its bytes at [at, at + length) of `frame`. */
    public interface Visitor {
        void visit(long page, int offset, int length, ByteBuffer frame, int at) throws Exception;
    }

    /** Where a checked frame's storage pages lie in its payload, and how many objects. */
    public record Frame(int count, int pagesAt, int pagesLength) {}

    /**
     * A network page size from a request: a storage page plus one entry, at most a frame of
     * the cell's (`maxFrame`, from `params.net_frame_bytes`).
     */
    public static int netPageBytes(long requested, int pageSize, int maxFrame) throws Failure {
        if (requested < pageSize + (long) HEAD + Index.ENTRY_BYTES || requested > maxFrame) {
            throw Failure.badRequest("params.net_page_bytes must be between a storage page ("
                + pageSize + " bytes) plus one entry and params.net_frame_bytes (" + maxFrame
                + "), got " + requested);
        }
        return (int) requested;
    }

    /** The failure of a sender whose object (or stored pages) would not fit the link's frame. */
    static Failure tooLarge(String what, Link link) {
        return Failure.internal(what + " a frame of " + link.maxFrame()
            + " (params.net_frame_bytes)");
    }

    static ByteBuffer head(int count) {
        ByteBuffer h = ByteBuffer.allocate(HEAD).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(0, count);
        return h;
    }

    /** Writes one entry at the end of `entries`. */
    static void putEntry(serbench.Bytes entries, long page, int offset, int length) {
        entries.reserve(Index.ENTRY_BYTES);
        ByteBuffer.wrap(entries.array, entries.length, Index.ENTRY_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN).putLong(page).putInt(offset).putInt(length);
        entries.length += Index.ENTRY_BYTES;
    }

    /**
     * Checks every entry of pages frame `frameNo` from `peer` against the frame before any
     * of its bytes is trusted (length >= 1, inside its page rules and the frame's pages,
     * after the previous object), and calls `visit` with each object in order. An error
     * names the peer, the frame and the object.
     */
    public static Frame forEachObject(Payload payload, int pageSize, String peer, long frameNo,
            Visitor visit) throws Failure {
        String where = "peer " + peer + ": network page " + frameNo + ": ";
        ByteBuffer b = payload.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int length = payload.length();
        if (length < HEAD || b.getInt(4) != 0) {
            throw Failure.corrupt(where + "has no entry count and zero word");
        }
        long count = Integer.toUnsignedLong(b.getInt(0));
        long pagesAt = HEAD + count * Index.ENTRY_BYTES;
        if (pagesAt > length) {
            throw Failure.corrupt(where + count + " entries do not fit its " + length
                + " bytes");
        }
        long pagesLength = length - pagesAt;
        long p = pageSize;
        long endOfPrevious = 0;
        for (int i = 0; i < count; i++) {
            int e = HEAD + i * Index.ENTRY_BYTES;
            long page = b.getLong(e);
            long offset = Integer.toUnsignedLong(b.getInt(e + 8));
            long len = Integer.toUnsignedLong(b.getInt(e + 12));
            // a page beyond the frame cannot hold anything: refuse it before multiplying
            long start = page < 0 || page > pagesLength / p + 1 ? Long.MAX_VALUE / 2
                : page * p + offset;
            boolean fits = len <= p ? offset + len <= p : offset == 0;
            if (len == 0 || !fits || start < endOfPrevious || start + len > pagesLength) {
                throw Failure.corrupt(where + "object " + i + " (page "
                    + Long.toUnsignedString(page) + ", offset " + offset + ", length " + len
                    + ") lies outside the page's " + pagesLength
                    + " bytes or overlaps the object before it");
            }
            endOfPrevious = start + len;
            try {
                visit.visit(page, (int) offset, (int) len, payload.buffer(),
                    (int) (pagesAt + start));
            } catch (Exception | StackOverflowError | OutOfMemoryError ex) {
                throw Failure.corrupt(where + "object " + i + ": " + Reads.describe(ex));
            }
        }
        return new Frame((int) count, (int) pagesAt, (int) pagesLength);
    }
}
