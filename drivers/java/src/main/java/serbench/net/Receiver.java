package serbench.net;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import serbench.Bytes;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.paged.Index;
import serbench.paged.PagedFile;
import serbench.tasks.Checksum;

/**
 * Appends received network pages to a paged file (`<base>.pages`; its index at the end),
 * checking every entry against the frame before any of its bytes is trusted: the frames'
 * storage pages are the file's pages, unchanged.
 */
public final class Receiver implements AutoCloseable {
    /** Hashes one received object (decoding it), for the set checksum. */
    public interface Fold {
        long hash(ByteBuffer frame, int at, int length) throws Exception;
    }

    private final FileChannel data;
    private final Path dataPath;
    private final Path indexPath;
    private final IoTimer timer;
    private final int pageSize;
    private final Bytes entries = new Bytes(1 << 12);
    private final Hasher entriesHash = new Hasher();
    private long pages;
    private long bytes;
    /** Whether the last frame ended inside a storage page (then no frame may follow). */
    private boolean partial;
    public final Streamed streamed = new Streamed();
    public final Checksum checksum = new Checksum();

    public Receiver(Path base, int pageSize, IoTimer timer) throws Failure {
        this.dataPath = PagedFile.data(base);
        this.indexPath = PagedFile.index(base);
        this.timer = timer;
        this.pageSize = pageSize;
        data = open(dataPath);
    }

    /** Takes one pages frame from `peer`; `fold` (null: none) hashes every object. */
    public void frame(Payload payload, String peer, Fold fold) throws Failure {
        long frameNo = streamed.frames;
        if (partial) {
            throw Failure.corrupt("peer " + peer + ": network page " + frameNo
                + " follows one that ended inside a storage page");
        }
        long firstPage = pages;
        NetPages.Frame f = NetPages.forEachObject(payload, pageSize, peer, frameNo,
            (page, offset, length, frame, at) -> {
                if (fold != null) {
                    checksum.add(fold.hash(frame, at, length));
                }
                long rebased = page + firstPage;
                NetPages.putEntry(entries, rebased, offset, length);
                entriesHash.word(rebased);
                entriesHash.word(Integer.toUnsignedLong(offset));
                entriesHash.word(Integer.toUnsignedLong(length));
            });
        ByteBuffer pagesOnly = payload.buffer().duplicate();
        pagesOnly.limit(f.pagesAt() + f.pagesLength()).position(f.pagesAt());
        write(pagesOnly, data, dataPath);
        pages += (f.pagesLength() + (long) pageSize - 1) / pageSize;
        bytes += f.pagesLength();
        partial = f.pagesLength() % pageSize != 0;
        streamed.add(f.count(), f.pagesLength());
    }

    /** Creates (or truncates) a file for writing, timed. */
    private FileChannel open(Path path) throws Failure {
        long t0 = System.nanoTime();
        try {
            return FileChannel.open(path, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw Failure.io(path, e);
        } finally {
            timer.since(t0);
        }
    }

    private void sync(FileChannel file, Path path) throws Failure {
        long t0 = System.nanoTime();
        try {
            file.force(true);
        } catch (IOException e) {
            throw Failure.io(path, e);
        } finally {
            timer.since(t0);
        }
    }

    private void write(ByteBuffer b, FileChannel to, Path path) throws Failure {
        long t0 = System.nanoTime();
        try {
            while (b.hasRemaining()) {
                to.write(b);
            }
        } catch (IOException e) {
            throw Failure.io(path, e);
        } finally {
            timer.since(t0);
        }
    }

    /** Fsyncs the data, then writes and fsyncs the index (`writer` wrote the file). */
    public Streamed finish(String model, String method, String writer) throws Failure {
        sync(data, dataPath);
        close();
        byte[] header = Index.header(pageSize, streamed.objects, pages, bytes,
            entriesHash.finish(), model, method, writer, Index.noRun()); // no run: bytes received
        FileChannel index = open(indexPath);
        try {
            write(ByteBuffer.wrap(header), index, indexPath);
            write(ByteBuffer.wrap(entries.array, 0, entries.length), index, indexPath);
            sync(index, indexPath);
        } finally {
            closeQuietly(index);
        }
        return streamed;
    }

    @Override
    public void close() {
        closeQuietly(data);
    }

    private void closeQuietly(FileChannel file) {
        long t0 = System.nanoTime();
        try {
            file.close();
        } catch (IOException ignored) {
            // a failed close after the fsync loses nothing; before it, the failure is reported
        } finally {
            timer.since(t0);
        }
    }
}
