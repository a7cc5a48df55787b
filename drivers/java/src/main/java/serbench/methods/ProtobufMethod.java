package serbench.methods;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.RuntimeVersion;
import java.nio.ByteBuffer;
import java.util.List;
import serbench.Bytes;
import serbench.Depth;
import serbench.Hasher;
import serbench.ModelType;
import serbench.methods.convert.ProtoConvert;
import serbench.methods.schema.ProtoRoot;
import serbench.wire.DecodeException;

/**
 * `protobuf`: protobuf-java with the message classes protoc generates written from the model definitions at
 * build time. One stored object is its root message's wire bytes, written by the generated
 * writeTo straight into the page buffer. Reading parses the bytes of the page in place
 * (protoc's Java parser checks UTF-8 of proto3 strings); `access` then visits every field
 * through the message's getters, `materialize` converts to the model classes.
 */
public final class ProtobufMethod<T, M extends MessageLite> implements Codec<T> {
    public static final MethodSpec SPEC = new MethodSpec("protobuf",
        List.of(Depth.MATERIALIZE, Depth.ACCESS),
        List.of(MethodSpec.SRC + "ProtobufMethod.java", MethodSpec.SRC + "schema/ProtoRoot.java",
            MethodSpec.SRC + "schema/ProtoIn.java", MethodSpec.CONVERT + "ProtoConvert.java"),
        true, false, java.util.Map.of(), ProtobufMethod::of);

    private final ModelType<T> model;
    private final ProtoRoot<T, M> root;

    private ProtobufMethod(ModelType<T> model, ProtoRoot<T, M> root) {
        this.model = model;
        this.root = root;
    }

    @SuppressWarnings("unchecked")
    static <T> Codec<T> of(ModelType<T> model) {
        return new ProtobufMethod<>(model, (ProtoRoot<T, MessageLite>) ProtoConvert.root(model.id));
    }

    /**
     * The loaded runtime's version (its jar has no Maven metadata), read reflectively: the
     * constants of RuntimeVersion would be inlined at compile time.
     */
    public static String runtimeVersion() {
        try {
            Class<?> v = RuntimeVersion.class;
            return v.getField("MAJOR").get(null) + "." + v.getField("MINOR").get(null) + "."
                + v.getField("PATCH").get(null) + v.getField("SUFFIX").get(null);
        } catch (ReflectiveOperationException e) {
            return "unknown";
        }
    }

    @Override
    public void encode(T value, Bytes out) throws Exception {
        M m = root.put().apply(value);
        int n = m.getSerializedSize();
        if (n == 0) {
            // a stored object is at least one byte: the same message, a default written out
            out.append(root.empty(), 0, root.empty().length);
            return;
        }
        out.reserve(n);
        CodedOutputStream cos = CodedOutputStream.newInstance(out.array, out.length, n);
        m.writeTo(cos);
        cos.checkNoSpaceLeft();
        out.length += n;
    }

    private M parse(ByteBuffer page, int off, int len) {
        try {
            return root.parser().parseFrom(page.array(), page.arrayOffset() + off, len);
        } catch (InvalidProtocolBufferException e) {
            throw new DecodeException(-1, "not a valid protobuf " + root.type().getSimpleName()
                + " message (" + len + " bytes): " + e.getMessage());
        }
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) {
        return root.take().apply(parse(page, off, len));
    }

    @Override
    public void fold(ByteBuffer page, int off, int len, Depth depth, Hasher h) {
        M m = parse(page, off, len);
        if (depth == Depth.ACCESS) {
            root.visit().accept(m, h);
        } else {
            model.fold(root.take().apply(m), h);
        }
    }
}
