package serbench;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import serbench.methods.Codec;
import serbench.methods.MethodSpec;
import serbench.model.Models;
import serbench.paged.Index;
import serbench.paged.PagedFile;
import serbench.tasks.Json;
import serbench.tasks.Reads;
import serbench.tasks.Tasks;
import serbench.wire.DecodeException;

/**
 * Seeded mutation fuzzing of the hand-coded decoders and of paged index files. Every mutated
 * input (bit flips, overwritten bytes, truncation, extension, length fields overwritten) must
 * decode or fail with the driver's own error (DecodeException, or a Failure for files); any
 * other exception, an out-of-memory error or a hang (the timeout) fails the test. The three
 * little-endian layouts must agree on every input (same verdict and hash), and an object's
 * verdict must not change with what surrounds it in the page (no read outside its extent).
 *
 * Bounded by time in `mvn test` (-Dserbench.fuzz.seconds, default 20, shared by both loops);
 * -Dserbench.fuzz.iterations=N runs exactly N decoder inputs (and N / 10 index files)
 * instead; -Dserbench.fuzz.seed picks the seed (default 1). A failure names seed, iteration
 * and the input in hex.
 */
class FuzzTest {
    private static final long SEED = Long.getLong("serbench.fuzz.seed", 1);
    private static final long ITERATIONS = Long.getLong("serbench.fuzz.iterations", 0);
    private static final long SECONDS = Long.getLong("serbench.fuzz.seconds", 20);
    private static final int[] LENGTHS = {0, 1, 2, 7, 8, 255, 256, 65535, 0x7fffffff,
        0x80000000, 0xffffffff, 0xfffffff8};
    /** Layouts of the same bytes; `handcoded_be` has its own. */
    private static final List<String> SAME_LAYOUT = List.of("handcoded", "handcoded_direct",
        "handcoded_unsafe");

    /** What decoding an input gave: its hash, or the decode error's message. */
    private record Verdict(boolean ok, long hash, String error) {
        boolean sameAs(Verdict o) {
            return ok == o.ok && (!ok || hash == o.hash);
        }
    }

    /** The budget of one loop: an iteration count, or a deadline. */
    private record Budget(long iterations, long deadline) {
        static Budget of(long iterations, double share) {
            return ITERATIONS > 0 ? new Budget(iterations, Long.MAX_VALUE)
                : new Budget(Long.MAX_VALUE,
                    System.nanoTime() + (long) (SECONDS * share * 1e9));
        }

        boolean more(long done) {
            return done < iterations && System.nanoTime() < deadline;
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.HOURS)
    void mutatedObjectsDecodeOrFailCleanly() throws Exception {
        List<Seed> seeds = new ArrayList<>();
        for (ModelType<?> model : Models.ALL) {
            seeds.addAll(seeds(model, "handcoded"));
            seeds.addAll(seeds(model, "handcoded_be"));
        }
        fuzz("decoder", seeds, 0.45, s -> s.bytes, (s, input, rng) -> s.check(input, rng),
            s -> s.model.id + " " + s.layout);
    }

    /** What a loop does with one mutated input of a seed; true: the input was accepted. */
    @FunctionalInterface
    private interface Check<S> {
        boolean accepts(S seed, byte[] input, Random rng) throws Exception;
    }

    /**
     * Mutated inputs of random seeds checked until the loop's share of the budget is spent;
     * some must be accepted and some refused. A failure names seed, iteration and input.
     */
    private static <S> void fuzz(String what, List<S> seeds, double share,
            java.util.function.Function<S, byte[]> bytesOf, Check<S> check,
            java.util.function.Function<S, String> name) throws Exception {
        Random rng = new Random(SEED);
        Budget budget = Budget.of(ITERATIONS, share);
        long done = 0;
        long accepted = 0;
        for (; budget.more(done); done++) {
            S seed = seeds.get(rng.nextInt(seeds.size()));
            byte[] input = mutate(bytesOf.apply(seed), rng);
            try {
                accepted += check.accepts(seed, input, rng) ? 1 : 0;
            } catch (RuntimeException | Error e) {
                fail("seed " + SEED + ", iteration " + done + ", " + name.apply(seed)
                    + ", input " + HexFormat.of().formatHex(input) + ": " + e, e);
            }
        }
        report(what, done, accepted);
        assertTrue(done > 0 && accepted > 0 && accepted < done, accepted + " of " + done);
    }

    /**
     * Every method's reader: mutated encodings of the golden vectors, read at every depth the
     * method offers, must agree (verdict and hash), fail only with an exception a read turns
     * into corrupt_input with a reason (never an Error: no stack overflow, no out-of-memory),
     * and take less than SLOW_MS each: a decoder's work is bounded by its input.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.HOURS)
    void mutatedObjectsOfEveryMethodReadOrFailCleanly() throws Exception {
        List<MethodSeed> seeds = new ArrayList<>();
        for (MethodSpec method : Registry.METHODS) {
            if (method.writes()) { // raw reads the others' files, it decodes nothing
                for (ModelType<?> model : Models.ALL) {
                    seeds.addAll(methodSeeds(method, model));
                }
            }
        }
        fuzz("every method", seeds, 0.35, MethodSeed::bytes, (seed, input, rng) -> {
            long start = System.nanoTime();
            boolean ok = seed.check(input, rng);
            long ms = (System.nanoTime() - start) / 1_000_000;
            // a slow input is timed again: a library's first error loads classes
            assertTrue(ms < SLOW_MS || seed.checkMillis(input, rng) < SLOW_MS,
                "slower than " + SLOW_MS + " ms twice");
            return ok;
        }, seed -> seed.model().id + " " + seed.method().id());
    }

    /** Far above any golden object's read, far below a decoder doing work beyond its input. */
    private static final long SLOW_MS = 2_000;

    /** One method's valid encoding of a vector object. */
    private record MethodSeed(MethodSpec method, ModelType<?> model, Codec<?> codec,
            byte[] bytes) {
        /** Reads at every depth of the method; true: ok. */
        boolean check(byte[] input, Random rng) throws Exception {
            Verdict first = null;
            for (Depth depth : method.depths()) {
                Verdict v = readOrReason(codec, depth,
                    place(input, 0, 0, method.directPages(), rng));
                if (first == null) {
                    first = v;
                }
                assertTrue(first.sameAs(v), method.id() + " " + depth.id + " disagrees with "
                    + method.depths().get(0).id + ": " + v + " vs " + first);
            }
            return first.ok;
        }

        long checkMillis(byte[] input, Random rng) throws Exception {
            long start = System.nanoTime();
            check(input, rng);
            return (System.nanoTime() - start) / 1_000_000;
        }
    }

    /** A read's verdict; a failure is any exception with a reason, as Reads reports it. */
    private static <T> Verdict readOrReason(Codec<T> codec, Depth depth, Placed p) {
        try {
            Hasher h = new Hasher();
            codec.fold(p.page(), p.off(), p.len(), depth, h);
            return new Verdict(true, h.finish(), null);
        } catch (Exception e) {
            String reason = Reads.describe(e);
            assertTrue(!reason.isBlank(), "no reason given: " + e);
            return new Verdict(false, 0, reason);
        }
    }

    private static <T> List<MethodSeed> methodSeeds(MethodSpec method, ModelType<T> model)
            throws Exception {
        Codec<T> codec = method.codec(model);
        List<MethodSeed> out = new ArrayList<>();
        for (T object : Json.load(Vectors.jsonl(model.id), model)) {
            Bytes b = new Bytes(64);
            codec.encode(object, b);
            out.add(new MethodSeed(method, model, codec, java.util.Arrays.copyOf(b.array,
                b.length)));
        }
        return out;
    }

    /** One valid encoding of a vector object and the codecs of its layout. */
    private static final class Seed {
        final ModelType<?> model;
        final String layout;
        final byte[] bytes;
        final List<MethodSpec> methods = new ArrayList<>();
        final List<Codec<?>> codecs = new ArrayList<>();

        Seed(ModelType<?> model, String layout, byte[] bytes) {
            this.model = model;
            this.layout = layout;
            this.bytes = bytes;
            for (String id : layout.equals("handcoded") ? SAME_LAYOUT : List.of(layout)) {
                methods.add(Registry.method(id));
                codecs.add(Registry.method(id).codec(model));
            }
        }

        /** Checks every codec of the layout at both depths and two placements; true: ok. */
        boolean check(byte[] input, Random rng) throws Exception {
            Verdict first = null;
            for (int k = 0; k < codecs.size(); k++) {
                boolean direct = methods.get(k).directPages();
                for (Depth depth : List.of(Depth.MATERIALIZE, Depth.ACCESS)) {
                    Verdict end = verdict(codecs.get(k), depth, place(input, 0, 0, direct, rng));
                    int before = 1 + rng.nextInt(16);
                    Verdict inside = verdict(codecs.get(k), depth,
                        place(input, before, 1 + rng.nextInt(16), direct, rng));
                    assertTrue(end.sameAs(inside), methods.get(k).id() + " " + depth.id
                        + " reads outside the object: " + end + " at the page's end, "
                        + inside + " inside it");
                    if (first == null) {
                        first = end;
                    }
                    assertTrue(first.sameAs(end), methods.get(k).id() + " " + depth.id
                        + " disagrees with " + methods.get(0).id() + ": " + end + " vs " + first);
                }
            }
            return first.ok;
        }
    }

    /** The page holding the input at `before` with `after` random bytes behind it. */
    private static Placed place(byte[] input, int before, int after, boolean direct, Random rng) {
        byte[] around = new byte[before + input.length + after];
        rng.nextBytes(around);
        System.arraycopy(input, 0, around, before, input.length);
        // a direct page is a view of exactly this size: reading past it throws
        ByteBuffer page = direct ? DIRECT.slice(0, around.length) : ByteBuffer.wrap(around);
        page.order(ByteOrder.nativeOrder());
        if (direct) {
            page.put(0, around);
        }
        return new Placed(page, before, input.length);
    }

    private record Placed(ByteBuffer page, int off, int len) {}

    /** Backs every direct page (mutated inputs stay far below its size). */
    private static final ByteBuffer DIRECT = ByteBuffer.allocateDirect(1 << 20);

    @SuppressWarnings("unchecked")
    private static <T> Verdict verdict(Codec<T> codec, Depth depth, Placed p) throws Exception {
        try {
            Hasher h = new Hasher();
            codec.fold(p.page(), p.off(), p.len(), depth, h);
            return new Verdict(true, h.finish(), null);
        } catch (DecodeException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
            return new Verdict(false, 0, e.getMessage());
        }
    }

    private static <T> List<Seed> seeds(ModelType<T> model, String layout) throws Exception {
        Codec<T> codec = Registry.method(layout).codec(model);
        List<Seed> out = new ArrayList<>();
        for (T object : Json.load(Vectors.jsonl(model.id), model)) {
            Bytes b = new Bytes(64);
            codec.encode(object, b);
            out.add(new Seed(model, layout, java.util.Arrays.copyOf(b.array, b.length)));
        }
        return out;
    }

    /** One to three mutations of the bytes. */
    static byte[] mutate(byte[] valid, Random rng) {
        byte[] b = valid.clone();
        for (int m = 0, n = 1 + rng.nextInt(3); m < n; m++) {
            b = mutateOnce(b, rng);
        }
        return b;
    }

    private static byte[] mutateOnce(byte[] b, Random rng) {
        switch (rng.nextInt(5)) {
            case 0: // bit flips
                if (b.length > 0) {
                    int at = rng.nextInt(b.length);
                    b[at] ^= (byte) (1 << rng.nextInt(8));
                }
                return b;
            case 1: // a byte overwritten
                if (b.length > 0) {
                    b[rng.nextInt(b.length)] = (byte) rng.nextInt(256);
                }
                return b;
            case 2: // truncation
                return java.util.Arrays.copyOf(b, b.length == 0 ? 0 : rng.nextInt(b.length));
            case 3: { // extension
                byte[] longer = java.util.Arrays.copyOf(b, b.length + 1 + rng.nextInt(16));
                for (int k = b.length; k < longer.length; k++) {
                    longer[k] = (byte) rng.nextInt(256);
                }
                return longer;
            }
            default: { // a u32 length field overwritten (either byte order)
                if (b.length < 4) {
                    return b;
                }
                int at = rng.nextInt(b.length - 3);
                int v = rng.nextBoolean() ? LENGTHS[rng.nextInt(LENGTHS.length)]
                    : rng.nextInt(b.length + 2);
                ByteBuffer.wrap(b).order(rng.nextBoolean() ? ByteOrder.LITTLE_ENDIAN
                    : ByteOrder.BIG_ENDIAN).putInt(at, v);
                return b;
            }
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.HOURS)
    void mutatedIndexFilesReadOrFailCleanly(@TempDir Path dir) throws Exception {
        MethodSpec method = Registry.method("handcoded");
        ModelType<?> model = ModelType.byId("tweet");
        Path base = dir.resolve("t");
        writeFile(method, model, base);
        byte[] index = Files.readAllBytes(PagedFile.index(base));
        Path mutated = dir.resolve("m");
        Files.copy(PagedFile.data(base), PagedFile.data(mutated));
        Random rng = new Random(SEED);
        Budget budget = Budget.of(Math.max(1, ITERATIONS / 10), 0.2);
        long done = 0;
        long read = 0;
        for (; budget.more(done); done++) {
            byte[] input = mutate(index, rng);
            if (input.length >= Index.HEADER_BYTES && rng.nextBoolean()) {
                rehash(input); // past the entries hash, to reach the entry checks
            }
            Files.write(PagedFile.index(mutated), input);
            try {
                Reads.read(method.codec(model), method, cast(model), mutated,
                    new Reads.Selection(0, -1, null), Depth.ACCESS, 256,
                    new serbench.paged.PageReader.Buffer(false), new IoTimer());
                read++;
            } catch (Failure f) {
                assertTrue(List.of("corrupt_input", "wrong_file").contains(f.kind)
                    && f.getMessage().contains(mutated.getFileName().toString()), f.kind + ": "
                    + f.getMessage());
            } catch (RuntimeException | Error e) {
                fail("seed " + SEED + ", iteration " + done + ", index "
                    + HexFormat.of().formatHex(input) + ": " + e, e);
            }
        }
        report("index", done, read);
        assertTrue(done > 0 && read < done);
    }

    @SuppressWarnings("unchecked")
    private static <T> ModelType<T> cast(ModelType<?> m) {
        return (ModelType<T>) m;
    }

    private static <T> void writeFile(MethodSpec method, ModelType<T> model, Path base)
            throws Exception {
        List<T> objects = new ArrayList<>();
        List<T> vectors = Json.load(Vectors.jsonl(model.id), model);
        for (int i = 0; i < 12; i++) {
            objects.add(vectors.get(i % vectors.size()));
        }
        Tasks.writeFile(method.codec(model), method, model, objects, base, 256, Index.noRun(),
            new IoTimer());
    }

    /** Recomputes the entries hash over whatever entries follow the header. */
    private static void rehash(byte[] index) {
        ByteBuffer b = ByteBuffer.wrap(index).order(ByteOrder.LITTLE_ENDIAN);
        Hasher h = new Hasher();
        for (int at = Index.HEADER_BYTES; at + Index.ENTRY_BYTES <= index.length;
                at += Index.ENTRY_BYTES) {
            h.word(b.getLong(at));
            h.word(Integer.toUnsignedLong(b.getInt(at + 8)));
            h.word(Integer.toUnsignedLong(b.getInt(at + 12)));
        }
        b.putLong(40, h.finish());
    }

    private static void report(String what, long done, long ok) {
        System.out.println("fuzz " + what + ": seed " + SEED + ", " + done + " inputs, " + ok
            + " accepted");
    }
}
