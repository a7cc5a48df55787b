package serbench.paged;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import serbench.Bytes;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;

/**
 * Writes a paged file (PROTOCOL.md 4.1): objects are encoded straight onto the end of the
 * current page's buffer; an object that does not fit what is left moves to the next page;
 * pages go out through one buffered, timed stream; the index is written last.
 */
public final class PageWriter implements AutoCloseable {
    private static final int WRITE_BUFFER = 1 << 20;
    /** Page padding (never written to). */
    private static final byte[] ZEROS = new byte[1 << 16];

    /** Encodes one object at the end of `out`. */
    public interface Encoder {
        void encode(Bytes out) throws Exception;
    }

    public record Counters(long objects, long bytes, long pages, long objectBytes) {}

    private final FileOutputStream file;
    private final OutputStream data;
    private final Path dataPath;
    private final Path indexPath;
    private final IoTimer timer;
    private final int pageSize;
    private final Bytes page;
    private final Bytes entries = new Bytes(1 << 12);
    private final Hasher hash = new Hasher();
    private long pageNo;
    private long objects;
    private long bytes;
    private long objectBytes;

    public PageWriter(Path base, int pageSize, IoTimer timer) throws Failure {
        this.dataPath = PagedFile.data(base);
        this.indexPath = PagedFile.index(base);
        this.timer = timer;
        this.pageSize = pageSize;
        this.page = new Bytes(pageSize);
        long t0 = System.nanoTime();
        try {
            file = new FileOutputStream(dataPath.toFile());
        } catch (IOException e) {
            throw Failure.io(dataPath, e);
        } finally {
            timer.since(t0);
        }
        data = new java.io.BufferedOutputStream(new Timed(file, timer), WRITE_BUFFER);
    }

    public void push(Encoder encoder) throws Exception {
        int start = page.length;
        encoder.encode(page);
        int length = page.length - start;
        if (length <= 0) {
            throw Failure.internal("object " + objects + ": encoded length " + length
                + " is not in 1..2^31");
        }
        if (start > 0 && (long) start + length > pageSize) {
            flushBefore(start);
        }
        record(page.length - length, length);
    }

    /**
     * Appends `length` bytes of `src` from `from` as the next object, packed as `push` packs
     * an encoded one (the sort floor's copies).
     */
    public void push(byte[] src, int from, int length) throws Failure {
        if (length <= 0) {
            throw Failure.internal("object " + objects + ": length " + length
                + " is not in 1..2^31");
        }
        if (page.length > 0 && (long) page.length + length > pageSize) {
            flushBefore(page.length);
        }
        page.append(src, from, length);
        record(page.length - length, length);
    }

    /**
     * Appends `length` bytes of `src` at `offset` of page `at` (the layout of a file being
     * copied, as the write floor does): the place must follow the object before it, on this
     * page or a later one.
     */
    public void place(long at, int offset, byte[] src, int from, int length) throws Failure {
        if (at != pageNo) {
            flushBefore(page.length);
        }
        if (at != pageNo || offset < page.length) {
            throw Failure.corrupt("object " + objects + ": its place (page " + at + ", offset "
                + offset + ", " + length + " bytes) does not follow the object before it");
        }
        page.reserve(offset + length - page.length);
        java.util.Arrays.fill(page.array, page.length, offset, (byte) 0);
        System.arraycopy(src, from, page.array, offset, length);
        page.length = offset + length;
        record(offset, length);
    }

    private void record(long offset, int length) {
        entries.reserve(Index.ENTRY_BYTES);
        int at = entries.length;
        entries.length += Index.ENTRY_BYTES;
        Index.U64.set(entries.array, at, pageNo);
        Index.U32.set(entries.array, at + 8, (int) offset);
        Index.U32.set(entries.array, at + 12, length);
        hash.word(pageNo);
        hash.word(offset);
        hash.word(length);
        objects++;
        objectBytes += length;
    }

    /** Writes the first `end` bytes padded to whole pages and keeps the rest at the front. */
    private void flushBefore(int end) throws Failure {
        long pages = (end + (long) pageSize - 1) / pageSize;
        try {
            data.write(page.array, 0, end);
            long padding = pages * pageSize - end;
            while (padding > 0) {
                int chunk = (int) Math.min(padding, ZEROS.length);
                data.write(ZEROS, 0, chunk);
                padding -= chunk;
            }
        } catch (IOException e) {
            throw Failure.io(dataPath, e);
        }
        page.dropFront(end);
        pageNo += pages;
        bytes += pages * pageSize;
    }

    /**
     * Writes the last page unpadded, fsyncs the data, then writes and fsyncs the index, stamped
     * with the run writing it (`Index.noRun()`: none).
     */
    public Counters finish(String model, String method, String writer, byte[] runStamp)
            throws Failure {
        int tail = page.length;
        long pages;
        try {
            data.write(page.array, 0, tail);
            data.flush();
            long t0 = System.nanoTime();
            file.getChannel().force(true);
            timer.since(t0);
            bytes += tail;
            pages = pageNo + (tail + (long) pageSize - 1) / pageSize;
            close();
        } catch (IOException e) {
            throw Failure.io(dataPath, e);
        }
        byte[] header = Index.header(pageSize, objects, pages, bytes, hash.finish(), model,
            method, writer, runStamp);
        long t0 = System.nanoTime();
        try (FileOutputStream index = new FileOutputStream(indexPath.toFile())) {
            index.write(header);
            index.write(entries.array, 0, entries.length);
            index.getChannel().force(true);
        } catch (IOException e) {
            throw Failure.io(indexPath, e);
        } finally {
            timer.since(t0);
        }
        return new Counters(objects, bytes, pages, objectBytes);
    }

    @Override
    public void close() throws IOException {
        long t0 = System.nanoTime();
        try {
            file.close();
        } finally {
            timer.since(t0);
        }
    }

    /** The file stream with every write timed. */
    private static final class Timed extends OutputStream {
        private final OutputStream out;
        private final IoTimer timer;

        Timed(OutputStream out, IoTimer timer) {
            this.out = out;
            this.timer = timer;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            long t0 = System.nanoTime();
            try {
                out.write(b, off, len);
            } finally {
                timer.since(t0);
            }
        }
    }
}
