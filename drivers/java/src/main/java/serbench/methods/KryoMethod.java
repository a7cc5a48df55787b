package serbench.methods;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.nio.ByteBuffer;
import java.util.List;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.model.Models;
import serbench.wire.DecodeException;

/**
 * `kryo`: Kryo 5 with registration required (every model class and array class registered
 * in a fixed order, so ids are stable), references off, the default FieldSerializer. One
 * Output and one Input are reused from object to object. With references off the format
 * has no back-references to follow; what a payload can still claim is a length: arrays and
 * strings longer than the bytes left (each element or char takes one at least) are refused
 * before Kryo allocates them.
 */
public final class KryoMethod<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("kryo", List.of(Depth.MATERIALIZE),
        "KryoMethod.java", KryoMethod::new);

    private final Kryo kryo = registered(false);
    private final Output output = new Output(1 << 16, -1);
    private final Input input = new BoundedInput();

    KryoMethod(ModelType<T> model) {
        super(model);
    }

    /** A Kryo with every class registered, in the order that fixes their ids. */
    static Kryo registered(boolean references) {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(true);
        kryo.setReferences(references);
        for (Class<?> c : List.of(byte[].class, short[].class, int[].class, long[].class,
                double[].class, boolean[].class)) {
            bounded(kryo.register(c));
        }
        for (Class<?> c : Models.CLASSES) {
            bounded(kryo.register(c));
        }
        return kryo;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void bounded(Registration r) {
        if (r.getType().isArray()) {
            r.setSerializer(new BoundedArray(r.getSerializer()));
        }
    }

    /** Bytes left in `input` from `at`, which a claimed count of `n` must not exceed. */
    private static void claim(Input input, int at, long n, String what) {
        int left = input.limit() - at;
        if (n > left) {
            throw new DecodeException(-1, n + " " + what + " claimed with " + left
                + " bytes left");
        }
    }

    /** An array serializer whose reads first check the length (Kryo writes it + 1, 0: null). */
    private static final class BoundedArray<A> extends Serializer<A> {
        private final Serializer<A> inner;

        BoundedArray(Serializer<A> inner) {
            super(inner.getAcceptsNull(), inner.isImmutable());
            this.inner = inner;
        }

        @Override
        public void write(Kryo kryo, Output output, A array) {
            inner.write(kryo, output, array);
        }

        @Override
        public A read(Kryo kryo, Input input, Class<? extends A> type) {
            int at = input.position();
            long length = input.readVarInt(true) - 1L;
            input.setPosition(at);
            claim(input, at, length, "elements in an array");
            return inner.read(kryo, input, type);
        }
    }

    /** An Input whose strings first check their length (a UTF-8 string's is chars + 1). */
    private static final class BoundedInput extends Input {
        @Override
        public String readString() {
            int at = position();
            if (at < limit() && (getBuffer()[at] & 0x80) != 0) {
                long chars = readVarIntFlag(true) - 1L;
                setPosition(at);
                claim(this, at, chars, "chars in a string");
            }
            return super.readString();
        }
    }

    @Override
    public void encode(T value, Bytes out) {
        output.reset();
        kryo.writeObject(output, value);
        out.append(output.getBuffer(), 0, output.position());
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) {
        input.setBuffer(page.array(), off, len);
        T v;
        try {
            v = kryo.readObject(input, model.type);
        } catch (KryoException e) {
            // Kryo wraps what a bound refused with its serialization trace: say only that
            throw e.getCause() instanceof DecodeException refused ? refused : e;
        }
        if (input.position() != off + len) {
            throw new DecodeException(input.position() - off, (off + len - input.position())
                + " trailing bytes after the object");
        }
        return v;
    }
}
