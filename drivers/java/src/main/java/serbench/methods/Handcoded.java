package serbench.methods;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Supplier;
import serbench.Bytes;
import serbench.Depth;
import serbench.Hasher;
import serbench.ModelType;
import serbench.wire.BeIn;
import serbench.wire.BeOut;
import serbench.wire.DirectIn;
import serbench.wire.DirectOut;
import serbench.wire.LeIn;
import serbench.wire.LeOut;
import serbench.wire.UnsafeIn;
import serbench.wire.UnsafeOut;
import serbench.wire.WireIn;
import serbench.wire.WireOut;

/**
 * The hand-coded layouts: the generated put/take/visit of each model over one byte-access
 * technique (a WireOut/WireIn pair). `handcoded` is the shared little-endian layout of
 * PROTOCOL.md section 7, byte-identical with the Rust and C++ drivers.
 */
public final class Handcoded<T> implements Codec<T> {
    static final List<Depth> DEPTHS = List.of(Depth.MATERIALIZE, Depth.ACCESS);

    public static final MethodSpec SPEC = spec("handcoded", "Handcoded.java", false,
        LeOut::new, LeIn::new);
    /** The same field order, big-endian, through heap ByteBuffers (its own bytes). */
    public static final MethodSpec BE = spec("handcoded_be", "Handcoded.java", false,
        BeOut::new, BeIn::new);
    /** The shared layout (native order) through direct ByteBuffers and bulk copies. */
    public static final MethodSpec DIRECT = spec("handcoded_direct", "Handcoded.java", true,
        DirectOut::new, DirectIn::new);
    /** The shared layout through sun.misc.Unsafe on heap arrays. */
    public static final MethodSpec UNSAFE = spec("handcoded_unsafe", "Handcoded.java", false,
        UnsafeOut::new, UnsafeIn::new);

    private final ModelType<T> model;
    private final WireOut out;
    private final WireIn in;

    Handcoded(ModelType<T> model, WireOut out, WireIn in) {
        this.model = model;
        this.out = out;
        this.in = in;
    }

    /** A hand-coded method: its wire classes are listed among its files. */
    static MethodSpec spec(String id, String file, boolean direct, Supplier<WireOut> out,
            Supplier<WireIn> in) {
        String wire = "drivers/java/src/main/java/serbench/wire/";
        List<String> files = new java.util.ArrayList<>(List.of(MethodSpec.SRC + file,
            wire + out.get().getClass().getSimpleName() + ".java",
            wire + in.get().getClass().getSimpleName() + ".java", wire + "Utf8.java"));
        if (id.equals("handcoded_unsafe")) { // its bounds-checked Unsafe access
            files.add(wire + "UnsafeAccess.java");
        }
        return new MethodSpec(id, DEPTHS, files, true, direct, java.util.Map.of(),
            m -> new Handcoded<>(m, out.get(), in.get()));
    }

    @Override
    public void encode(T value, Bytes bytes) {
        out.begin(bytes);
        model.put(value, out);
        out.end();
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) {
        in.on(page, off, len);
        T value = model.take(in);
        in.finish();
        return value;
    }

    @Override
    public void fold(ByteBuffer page, int off, int len, Depth depth, Hasher h) {
        if (depth == Depth.ACCESS) {
            in.on(page, off, len);
            model.visit(in, h);
            in.finish();
        } else {
            model.fold(decode(page, off, len), h);
        }
    }
}
