package serbench.net;

import java.nio.ByteBuffer;
import java.util.Arrays;
import serbench.Bytes;
import serbench.Failure;
import serbench.IoTimer;
import serbench.paged.Index;
import serbench.paged.PageWriter;

/**
 * Packs objects, encoded straight onto the end of a network page, applying the paged file's
 * rules within the frame (PROTOCOL.md 4.1), and sends the frame when the next storage page
 * would not fit the network page. An object never spans two frames.
 */
public final class Packer {
    private final int pageSize;
    private final int budget;
    private final Bytes pages;
    /** Where the current (last) storage page starts in `pages`. */
    private int pageStart;
    private final Bytes entries = new Bytes(1 << 12);
    private int count;
    private Streamed streamed = new Streamed();

    public Packer(int pageSize, int budget) {
        this.pageSize = pageSize;
        this.budget = budget;
        this.pages = new Bytes(Math.min(budget, 1 << 20));
    }

    /** Appends one object, which `encoder` writes at the end of the network page. */
    public void push(PageWriter.Encoder encoder, Link link, IoTimer timer) throws Exception {
        long p = pageSize;
        int at = pages.length;
        encoder.encode(pages);
        int len = pages.length - at;
        // an object larger than a network page travels alone, in a frame up to the link's
        // maximum (the cell's net_frame_bytes)
        if (len <= 0 || (len + p - 1) / p * p > link.maxFrame() - NetPages.HEAD
                - Index.ENTRY_BYTES) {
            throw NetPages.tooLarge("an object of " + len + " bytes does not fit", link);
        }
        if (at > pageStart && at - pageStart + (long) len > p) {
            // it starts the next storage page: pad this one and move the object after it
            int next = pageStart + pageSize;
            pages.reserve(next + len - pages.length);
            System.arraycopy(pages.array, at, pages.array, next, len);
            Arrays.fill(pages.array, at, next, (byte) 0);
            pages.length = next + len;
            pageStart = next;
            at = next;
        }
        long entriesAfter = NetPages.HEAD + (count + 1L) * Index.ENTRY_BYTES;
        if (at == pageStart && pageStart > 0 && at + len + entriesAfter > budget) {
            sendPages(pageStart, link, timer);
            pages.dropFront(pageStart);
            pageStart = 0;
            at = 0;
        }
        NetPages.putEntry(entries, pageStart / p, at - pageStart, len);
        count++;
        if (len > p) {
            // a large object owns its pages; the next object starts after them
            pageStart += (int) ((len + p - 1) / p * p);
            pages.reserve(pageStart - pages.length);
            Arrays.fill(pages.array, pages.length, pageStart, (byte) 0);
            pages.length = pageStart;
        }
    }

    /** Sends the first `end` bytes of pages with every entry so far. */
    private void sendPages(int end, Link link, IoTimer timer) throws Failure {
        link.send(FrameKind.PAGES, timer, NetPages.head(count),
            ByteBuffer.wrap(entries.array, 0, entries.length), ByteBuffer.wrap(pages.array, 0,
                end));
        streamed.add(count, end);
        entries.length = 0;
        count = 0;
    }

    /** Sends what is left (its last page unpadded); the packer is ready for the next stream. */
    public Streamed finish(Link link, IoTimer timer) throws Failure {
        if (count > 0) {
            sendPages(pages.length, link, timer);
        }
        pages.length = 0;
        pageStart = 0;
        Streamed done = streamed;
        streamed = new Streamed();
        return done;
    }
}
