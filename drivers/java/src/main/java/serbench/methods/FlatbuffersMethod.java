package serbench.methods;

import com.google.flatbuffers.FlatBufferBuilder;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import serbench.Bytes;
import serbench.Depth;
import serbench.Hasher;
import serbench.ModelType;
import serbench.methods.convert.FlatConvert;
import serbench.methods.schema.FlatIn;
import serbench.methods.schema.FlatRoot;
import serbench.wire.DecodeException;

/**
 * `flatbuffers`: flatbuffers-java 2.0.8 with the table classes flatc 2.0.8 generates from
 * the model definitions at build time. One stored object is one finished buffer (no size prefix, no
 * file identifier), built by one FlatBufferBuilder cleared before every object. Reads run on
 * a view of exactly the object's bytes: `access` folds every field through the generated
 * accessors (strings from their bytes in place), `materialize` converts to the model classes.
 * The Java runtime has no verifier: FlatIn bounds nesting and total work, ByteBuffer bounds
 * every access, and any failure becomes a decode error naming the buffer.
 */
public final class FlatbuffersMethod<T, R> implements Codec<T> {
    public static final MethodSpec SPEC = new MethodSpec("flatbuffers",
        List.of(Depth.MATERIALIZE, Depth.ACCESS),
        List.of(MethodSpec.SRC + "FlatbuffersMethod.java", MethodSpec.SRC + "schema/FlatRoot.java",
            MethodSpec.SRC + "schema/FlatIn.java", MethodSpec.SRC + "schema/FlatOut.java",
            MethodSpec.CONVERT + "FlatConvert.java"),
        true, false, Map.of(), FlatbuffersMethod::of);

    private final ModelType<T> model;
    private final FlatRoot<T, R> root;
    private final FlatBufferBuilder builder = new FlatBufferBuilder(1 << 16);
    private final FlatIn in = new FlatIn();

    private FlatbuffersMethod(ModelType<T> model, FlatRoot<T, R> root) {
        this.model = model;
        this.root = root;
    }

    @SuppressWarnings("unchecked")
    static <T> Codec<T> of(ModelType<T> model) {
        return new FlatbuffersMethod<>(model, (FlatRoot<T, Object>) FlatConvert.root(model.id));
    }

    @Override
    public void encode(T value, Bytes out) {
        builder.clear();
        builder.finish(root.put().put(builder, value));
        ByteBuffer data = builder.dataBuffer();
        int n = data.remaining();
        out.reserve(n);
        data.get(data.position(), out.array, out.length, n);
        out.length += n;
    }

    /** The root table of the buffer at [off, off + len), on a view bounded to those bytes. */
    private R open(ByteBuffer page, int off, int len) {
        ByteBuffer buffer = page.slice(off, len);
        in.reset(buffer);
        return root.root().of(buffer);
    }

    /** Any failure of a read, as a decode error naming the buffer. */
    private DecodeException invalid(int len, RuntimeException e) {
        String why = e instanceof DecodeException ? e.getMessage() : e.toString();
        return new DecodeException(-1, "not a valid flatbuffers " + root.type().getSimpleName()
            + " buffer (" + len + " bytes): " + why);
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) {
        try {
            return root.take().take(open(page, off, len), in);
        } catch (RuntimeException e) {
            throw invalid(len, e);
        }
    }

    @Override
    public void fold(ByteBuffer page, int off, int len, Depth depth, Hasher h) {
        try {
            if (depth == Depth.ACCESS) {
                root.visit().visit(open(page, off, len), h, in);
            } else {
                model.fold(root.take().take(open(page, off, len), in), h);
            }
        } catch (RuntimeException e) {
            throw invalid(len, e);
        }
    }
}
