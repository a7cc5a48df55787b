package serbench.methods;

import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.model.Models;
import serbench.modelio.ExtIn;
import serbench.wire.DecodeException;

/**
 * `java_externalizable`: Java serialization where the root is an Externalizable box whose
 * writeExternal/readExternal stream every field by hand (the generated writeExt/readExt of
 * the model), one ObjectOutputStream per object. Reading allows only the box class.
 */
public final class JavaExternalizable<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("java_externalizable",
        List.of(Depth.MATERIALIZE), "JavaExternalizable.java", JavaExternalizable::new);

    private static final Set<Class<?>> ALLOWED = Set.of(Box.class);

    private final Streams.Out out = new Streams.Out();
    private final Streams.In in = new Streams.In();
    private final Box box = new Box();

    JavaExternalizable(ModelType<T> model) {
        super(model);
    }

    /** The root of each stream: the model's number, then its fields. */
    public static final class Box implements Externalizable {
        private static final long serialVersionUID = 1L;
        ModelType<?> model;
        Object value;

        public Box() {}

        @Override
        @SuppressWarnings("unchecked")
        public void writeExternal(ObjectOutput o) throws IOException {
            o.writeByte(Models.ALL.indexOf(model));
            ((ModelType<Object>) model).writeExt(value, o);
        }

        @Override
        public void readExternal(ObjectInput i) throws IOException {
            int k = i.readUnsignedByte();
            if (k >= Models.ALL.size()) {
                throw new DecodeException(-1, "model number " + k + " is unknown");
            }
            model = Models.ALL.get(k);
            value = model.readExt(i);
        }
    }

    @Override
    public void encode(T value, Bytes bytes) throws Exception {
        box.model = model;
        box.value = value;
        try (ObjectOutputStream o = new ObjectOutputStream(out.on(bytes))) {
            o.writeObject(box);
        }
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) throws Exception {
        ExtIn.begin(len);
        Object v = JavaBuiltin.read(in.on(page, off, len), new JavaBuiltin.Filter(ALLOWED, len));
        if (!(v instanceof Box b) || b.model != model) {
            throw new DecodeException(-1, "the stream does not hold a " + model.id + " box");
        }
        return Materialized.checked(model, b.value, in);
    }
}
