package serbench.tasks;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import serbench.Depth;
import serbench.Failure;
import serbench.Hasher;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.paged.Index;
import serbench.paged.PageReader;
import serbench.wire.DecodeException;

/** Reading a selection of a paged file's objects and folding their set checksum. */
public final class Reads {
    private Reads() {}

    /** What a read saw. */
    public record Outcome(long count, long sum, long pagesRead, String writer) {
        public boolean same(Outcome o) {
            return count == o.count && sum == o.sum;
        }

        Checksum checksum() {
            Checksum c = new Checksum();
            c.count = count;
            c.sum = sum;
            return c;
        }
    }

    /** `ids` null: objects start .. start + n (n < 0: all of them). */
    public record Selection(long start, long n, long[] ids) {
        static final Selection ALL = new Selection(0, -1, null);
    }

    public static <T> Outcome read(Codec<T> codec, MethodSpec method, ModelType<T> model,
            Path base, Selection sel, Depth depth, Integer pageSize, PageReader.Buffer page,
            IoTimer timer) throws Failure {
        Index.Expect expect = new Index.Expect(model.id, method.writes() ? method.id() : null,
            pageSize);
        try (PageReader reader = new PageReader(base, expect, timer, page)) {
            long count = reader.index.count;
            long sum = 0;
            if (sel.ids() != null) {
                for (long id : sel.ids()) {
                    if (id < 0 || id >= count) {
                        throw outOfRange(base, "object " + Long.toUnsignedString(id), count);
                    }
                }
                for (long id : sel.ids()) {
                    sum += visit(codec, reader, id, depth);
                }
                return new Outcome(sel.ids().length, sum, reader.pagesRead, reader.index.writer);
            }
            long n = sel.n() < 0 ? count : sel.n();
            if (sel.start() > count || n > count - sel.start()) {
                throw outOfRange(base, "objects " + sel.start() + "..+" + n, count);
            }
            for (long id = sel.start(); id < sel.start() + n; id++) {
                sum += visit(codec, reader, id, depth);
            }
            return new Outcome(n, sum, reader.pagesRead, reader.index.writer);
        }
    }

    private static <T> long visit(Codec<T> codec, PageReader reader, long id, Depth depth)
            throws Failure {
        ByteBuffer page = reader.object(id);
        int off = reader.index.offset(id);
        Hasher h = new Hasher();
        try {
            codec.fold(page, off, reader.index.length(id), depth, h);
        } catch (Failure f) {
            throw f;
        } catch (Exception | StackOverflowError | OutOfMemoryError e) {
            throw located(reader, id, e);
        }
        return h.finish();
    }

    /** Object `id` of the reader's file as a native object (sort_dedup, memory). */
    static <T> T decode(Codec<T> codec, PageReader reader, long id) throws Failure {
        ByteBuffer page = reader.object(id);
        try {
            return codec.decode(page, reader.index.offset(id), reader.index.length(id));
        } catch (Failure f) {
            throw f;
        } catch (Exception | StackOverflowError | OutOfMemoryError e) {
            throw located(reader, id, e);
        }
    }

    /** A decoding failure as corrupt_input naming the file, page, object and offset. */
    private static Failure located(PageReader reader, long id, Throwable e) {
        return Failure.corrupt(reader.dataPath() + ": page " + reader.index.page(id)
            + ", object " + id + " at offset " + reader.index.offset(id) + ": " + describe(e));
    }

    /**
     * A library's exception as one line that says what is wrong: what its class means for the
     * bytes read (libraries throw bare `UTFDataFormatException`, "Input length = 1", null
     * pointers), then its own first line, then its root cause's when that says more.
     */
    public static String describe(Throwable e) {
        String own = firstLine(e);
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String rootMeaning = meaning(root);
        String meaning = rootMeaning != null ? rootMeaning : meaning(e);
        StringBuilder out = new StringBuilder();
        if (meaning != null) {
            out.append(meaning).append(" (");
        }
        out.append(e instanceof DecodeException || e instanceof Failure ? own
            : e.getClass().getSimpleName() + (own.isEmpty() ? "" : ": " + own));
        if (root != e && !firstLine(root).isEmpty() && !own.contains(firstLine(root))) {
            out.append("; caused by ").append(root.getClass().getSimpleName()).append(": ")
                .append(firstLine(root));
        }
        return meaning != null ? out.append(")").toString() : out.toString();
    }

    private static String firstLine(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? "" : m.strip().lines().findFirst().orElse("");
    }

    /** What an exception class says about the bytes, where its message may not. */
    private static String meaning(Throwable e) {
        if (e instanceof java.io.UTFDataFormatException) {
            return "a string that is not (modified) UTF-8";
        }
        if (e instanceof java.nio.charset.CharacterCodingException) {
            return "text that is not UTF-8";
        }
        if (e instanceof java.io.EOFException) {
            return "the object ends before its last field";
        }
        if (e instanceof NullPointerException) {
            return "a field the object needs is missing";
        }
        if (e instanceof StackOverflowError) {
            return "nesting deeper than the reader's stack";
        }
        if (e instanceof OutOfMemoryError) {
            return "a length larger than the heap can hold";
        }
        return null;
    }

    private static Failure outOfRange(Path base, String what, long count) {
        return new Failure("out_of_range", what + " asked, " + base + " holds " + count
            + " objects");
    }
}
