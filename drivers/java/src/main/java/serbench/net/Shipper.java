package serbench.net;

import java.nio.ByteBuffer;
import serbench.Bytes;
import serbench.Failure;
import serbench.IoTimer;
import serbench.paged.Index;
import serbench.paged.PageReader;

/**
 * Sends objects `start .. start + n` of an open, checked paged file as the stored pages
 * holding them, as they are (no decode, no encode), grouped into network pages at object
 * boundaries; a network page ends before a storage page that would take it past the budget.
 */
public final class Shipper {
    private final PageReader reader;
    private final int budget;
    private final Link link;
    private final IoTimer timer;
    private final Bytes entries = new Bytes(1 << 12);
    private ByteBuffer buffer;
    private int count;
    private final Streamed streamed = new Streamed();

    public Shipper(PageReader reader, int budget, Link link, IoTimer timer) {
        this.reader = reader;
        this.budget = budget;
        this.link = link;
        this.timer = timer;
    }

    public Streamed ship(long start, long n) throws Failure {
        Index index = reader.index;
        long p = index.pageSize;
        long firstPage = 0;
        long lastPage = -1;
        for (long k = start; k < start + n; k++) {
            long page = index.page(k);
            long len = Integer.toUnsignedLong(index.length(k));
            long last = page + Math.max(1, (len + p - 1) / p) - 1;
            if (lastPage < 0) {
                firstPage = page;
            } else if (page > lastPage) {
                long bytes = (last - firstPage + 1) * p + NetPages.HEAD
                    + (count + 1L) * Index.ENTRY_BYTES;
                if (bytes > budget) {
                    send(firstPage, lastPage);
                    firstPage = page;
                }
            }
            NetPages.putEntry(entries, page - firstPage, index.offset(k), index.length(k));
            count++;
            lastPage = Math.max(lastPage, last);
        }
        if (lastPage >= 0) {
            send(firstPage, lastPage);
        }
        return streamed;
    }

    /** Reads the file's pages first ..= last (the file's last one unpadded) and sends them. */
    private void send(long first, long last) throws Failure {
        long p = reader.index.pageSize;
        long from = first * p;
        long to = Math.min((last + 1) * p, reader.index.dataLen);
        // a large stored object travels alone: refused before its pages are read if the
        // frame would exceed the link's maximum
        if (to - from + NetPages.HEAD + entries.length > link.maxFrame()) {
            throw NetPages.tooLarge("stored pages of " + (to - from) + " bytes do not fit",
                link);
        }
        int len = (int) (to - from);
        if (buffer == null || buffer.capacity() < len) {
            buffer = ByteBuffer.allocate(len);
        }
        buffer.clear().limit(len);
        reader.readAt(from, buffer);
        buffer.flip();
        link.send(FrameKind.PAGES, timer, NetPages.head(count),
            ByteBuffer.wrap(entries.array, 0, entries.length), buffer);
        streamed.add(count, len);
        entries.length = 0;
        count = 0;
    }
}
