package serbench.methods;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.nio.ByteBuffer;
import java.util.List;
import serbench.Bytes;
import serbench.Depth;
import serbench.model.ModelType;
import serbench.model.Models;
import serbench.wire.DecodeException;

/**
 * `kryo`: Kryo 5 with registration required (every model class and array class registered
 * in a fixed order, so ids are stable), references off, the default FieldSerializer. One
 * Output and one Input are reused from object to object.
 */
public final class KryoMethod<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("kryo", List.of(Depth.MATERIALIZE),
        "KryoMethod.java", KryoMethod::new);

    private final Kryo kryo = new Kryo();
    private final Output output = new Output(1 << 16, -1);
    private final Input input = new Input();

    KryoMethod(ModelType<T> model) {
        super(model);
        kryo.setRegistrationRequired(true);
        kryo.setReferences(false);
        for (Class<?> c : List.of(byte[].class, short[].class, int[].class, long[].class,
                double[].class, boolean[].class)) {
            kryo.register(c);
        }
        for (Class<?> c : Models.CLASSES) {
            kryo.register(c);
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
        T v = kryo.readObject(input, model.type);
        if (input.position() != off + len) {
            throw new DecodeException(input.position() - off, (off + len - input.position())
                + " trailing bytes after the object");
        }
        return v;
    }
}
