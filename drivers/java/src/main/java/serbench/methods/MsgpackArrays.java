package serbench.methods;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.methods.convert.MsgpackArraysConvert;
import serbench.methods.schema.MsgpackIn;

/**
 * `msgpack_arrays` (PROTOCOL.md section 8.2.1): every struct an array of its fields in schema
 * order, nil for an absent optional, through msgpack-core's packer and unpacker driven by the
 * generated MsgpackArraysConvert (msgpack-core packs every integer in its smallest form, f64
 * as float 64). MsgpackIn reads strictly: wrong array lengths, types, ranges, UTF-8 and
 * trailing bytes are errors.
 */
public final class MsgpackArrays<T> extends Materialized<T> {
    public static final MethodSpec SPEC = new MethodSpec("msgpack_arrays",
        List.of(Depth.MATERIALIZE),
        List.of(MethodSpec.SRC + "MsgpackArrays.java", MethodSpec.SRC + "schema/MsgpackIn.java",
            MethodSpec.CONVERT + "MsgpackArraysConvert.java"),
        true, false, Map.of("structs", "arrays of their fields in schema order"),
        MsgpackArrays::new);

    private final MsgpackIn.Root<T> root;
    private final Streams.Out out = new Streams.Out();
    private final MessagePacker packer = MessagePack.newDefaultPacker(out);
    private final MsgpackIn in = new MsgpackIn();

    @SuppressWarnings("unchecked")
    MsgpackArrays(ModelType<T> model) {
        super(model);
        root = (MsgpackIn.Root<T>) MsgpackArraysConvert.root(model.id);
    }

    @Override
    public void encode(T value, Bytes bytes) throws IOException {
        out.on(bytes);
        root.put().put(value, packer);
        packer.flush();
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) throws IOException {
        return in.read(root.take(), page.array(), off, len);
    }
}
