package serbench;

import java.util.List;
import serbench.methods.AvroMethod;
import serbench.methods.Bson;
import serbench.methods.FlatbuffersMethod;
import serbench.methods.ForyMethod;
import serbench.methods.Handcoded;
import serbench.methods.JavaBuiltin;
import serbench.methods.JavaExternalizable;
import serbench.methods.JsonGzip;
import serbench.methods.JsonMethod;
import serbench.methods.KryoMethod;
import serbench.methods.Msgpack;
import serbench.methods.MethodSpec;
import serbench.methods.ProtobufMethod;
import serbench.methods.Raw;
import serbench.methods.Xml;

/** THE registry of this driver: every method and every task, one line each. */
public final class Registry {
    private Registry() {}

    public static final List<MethodSpec> METHODS = List.of(
        Handcoded.SPEC,
        Handcoded.BE,
        Handcoded.DIRECT,
        Handcoded.UNSAFE,
        JavaBuiltin.SPEC,
        JavaExternalizable.SPEC,
        KryoMethod.SPEC,
        JsonMethod.SPEC,
        JsonGzip.SPEC,
        Msgpack.SPEC,
        Bson.SPEC,
        ForyMethod.SPEC,
        Xml.SPEC,
        Raw.SPEC,
        ProtobufMethod.SPEC,
        FlatbuffersMethod.SPEC,
        AvroMethod.SPEC);

    public static final List<String> TASKS = List.of("write", "read_seq", "read_rand",
        "read_par", "sort_dedup", "memory", "micro");

    /** Every task id of the protocol; those this driver does not run are unsupported. */
    public static final List<String> PROTOCOL_TASKS = List.of("write", "read_seq", "read_rand",
        "read_par", "sort_dedup", "memory", "micro", "sizes");

    public static MethodSpec method(String id) {
        return METHODS.stream().filter(m -> m.id().equals(id)).findFirst().orElse(null);
    }
}
