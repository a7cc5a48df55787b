package serbench.paged;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import serbench.Failure;
import serbench.IoTimer;

/**
 * Reads a paged file: the index is read whole and checked, then each object is served from
 * one page buffer (heap or direct, as the method wants; reused across repetitions), refilled
 * by a positional read only when the page changes.
 */
public final class PageReader implements AutoCloseable {
    /** A page buffer lent by the caller so repetitions reuse it. */
    public static final class Buffer {
        final boolean direct;
        ByteBuffer bytes;

        public Buffer(boolean direct) {
            this.direct = direct;
        }

        ByteBuffer atLeast(int n) {
            if (bytes == null || bytes.capacity() < n) {
                bytes = direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
                bytes.order(ByteOrder.nativeOrder());
            }
            return bytes;
        }
    }

    private final FileChannel data;
    private final Path dataPath;
    private final IoTimer timer;
    private final Buffer page;
    public final Index index;
    private long loaded = -1;
    public long pagesRead;

    public PageReader(Path base, Index.Expect expect, IoTimer timer, Buffer page) throws Failure {
        Path indexPath = PagedFile.index(base);
        this.dataPath = PagedFile.data(base);
        this.timer = timer;
        this.page = page;
        long t0 = System.nanoTime();
        byte[] indexBytes;
        long dataLen;
        try {
            indexBytes = Files.readAllBytes(indexPath);
        } catch (IOException e) {
            throw Failure.io(indexPath, e);
        }
        try {
            data = FileChannel.open(dataPath, StandardOpenOption.READ);
            dataLen = data.size();
        } catch (IOException e) {
            throw Failure.io(dataPath, e);
        } finally {
            timer.since(t0);
        }
        try {
            index = Index.parse(indexPath.toString(), indexBytes, dataPath.toString(), dataLen,
                expect);
        } catch (Failure f) {
            closeQuietly();
            throw f;
        }
    }

    public Path dataPath() {
        return dataPath;
    }

    /** The buffer holding object n's page (object n starts at index.offset(n) in it). */
    public ByteBuffer object(long n) throws Failure {
        long p = index.page(n);
        if (loaded != p) {
            load(p, index.length(n));
        }
        return page.bytes;
    }

    /** Reads page `p`, or all of a large object's pages. */
    private void load(long p, int length) throws Failure {
        long size = index.pageSize;
        long start = p * size;
        // the index check guarantees both fit in the data file
        int len = (int) (length > size ? length : Math.min(size, index.dataLen - start));
        ByteBuffer buf = page.atLeast(len);
        buf.clear().limit(len);
        loaded = -1;
        long t0 = System.nanoTime();
        try {
            while (buf.hasRemaining()) {
                if (data.read(buf, start + buf.position()) < 0) {
                    throw Failure.corrupt(dataPath + ": page " + p + ": the file ends early");
                }
            }
        } catch (IOException e) {
            throw Failure.corrupt(dataPath + ": page " + p + ": " + e.getMessage());
        } finally {
            timer.since(t0);
        }
        loaded = p;
        pagesRead++;
    }

    /**
     * Fills `into` (position to limit) with the data file's bytes from `position` on, timed:
     * stored pages shipped as they are (net_fetch from disk).
     */
    public void readAt(long position, ByteBuffer into) throws Failure {
        long t0 = System.nanoTime();
        try {
            long at = position;
            while (into.hasRemaining()) {
                int n = data.read(into, at);
                if (n < 0) {
                    throw Failure.corrupt(dataPath + ": ends before byte " + at);
                }
                at += n;
            }
        } catch (IOException e) {
            throw Failure.corrupt(dataPath + ": at byte " + position + ": " + e.getMessage());
        } finally {
            timer.since(t0);
        }
    }

    private void closeQuietly() {
        try {
            data.close();
        } catch (IOException ignored) {
            // the failure being reported matters more than a failed close
        }
    }

    @Override
    public void close() {
        long t0 = System.nanoTime();
        closeQuietly();
        timer.since(t0);
    }
}
