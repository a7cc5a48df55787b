package serbench.methods;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Supplier;
import serbench.Bytes;
import serbench.Depth;
import serbench.Hasher;
import serbench.model.ModelType;
import serbench.wire.LeIn;
import serbench.wire.LeOut;
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
        List<String> files = List.of(MethodSpec.SRC + file,
            wire + out.get().getClass().getSimpleName() + ".java",
            wire + in.get().getClass().getSimpleName() + ".java");
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
