package serbench.methods;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.apache.fory.memory.MemoryBuffer;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.model.Models;
import serbench.tasks.Json;
import serbench.wire.DecodeException;

/**
 * `fory`: Apache Fory's Java-native format with class registration required (every model
 * class registered in a fixed order; a class the bytes name that is not registered is refused,
 * where compatible mode would read it as a placeholder struct), reference tracking off (so a
 * payload has no back-references to follow; one written with them is refused), generated
 * serializers. One output buffer is reused; reads wrap the page bytes in place.
 */
public final class ForyMethod<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("fory", List.of(Depth.MATERIALIZE),
        "ForyMethod.java", ForyMethod::new);

    private final Fory fory = Fory.builder().withLanguage(Language.JAVA)
        .requireClassRegistration(true).withDeserializeUnknownClass(false)
        .withRefTracking(false).withCodegen(true).withMaxDepth(Json.MAX_NESTING).build();
    private final MemoryBuffer buffer = MemoryBuffer.fromByteArray(new byte[1 << 16]);

    ForyMethod(ModelType<T> model) {
        super(model);
        for (Class<?> c : Models.CLASSES) {
            fory.register(c);
        }
    }

    @Override
    public void encode(T value, Bytes out) {
        buffer.writerIndex(0);
        fory.serialize(buffer, value);
        out.append(buffer.getHeapMemory(), 0, buffer.writerIndex());
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) {
        MemoryBuffer in = MemoryBuffer.fromByteArray(page.array(), off, len);
        Object v = fory.deserialize(in);
        if (in.readerIndex() != len) {
            throw new DecodeException(in.readerIndex(), (len - in.readerIndex())
                + " trailing bytes after the object");
        }
        if (!model.type.isInstance(v)) {
            throw new DecodeException(-1, "the bytes hold "
                + (v == null ? "null" : v.getClass().getName()) + ", not " + model.type.getName());
        }
        return model.type.cast(v);
    }
}
