package serbench.methods;

import java.nio.ByteBuffer;
import serbench.Depth;
import serbench.Hasher;
import serbench.ModelType;
import serbench.wire.DecodeException;

/** A method that only materializes: a read decodes the object, then visits every field. */
abstract class Materialized<T> implements Codec<T> {
    final ModelType<T> model;

    Materialized(ModelType<T> model) {
        this.model = model;
    }

    /** The decoded root, which must be the model's class with nothing after it. */
    static <T> T checked(ModelType<T> model, Object v, Streams.In in) {
        if (!model.type.isInstance(v)) {
            throw new DecodeException(-1, "the stream holds "
                + (v == null ? "null" : v.getClass().getName()) + ", not " + model.type.getName());
        }
        if (in.left() != 0) {
            throw new DecodeException(-1, in.left() + " trailing bytes after the object");
        }
        return model.type.cast(v);
    }

    @Override
    public final void fold(ByteBuffer page, int off, int len, Depth depth, Hasher h)
            throws Exception {
        model.fold(decode(page, off, len), h);
    }
}
