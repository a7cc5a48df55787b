package serbench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import serbench.methods.MsgpackArrays;
import serbench.methods.MethodSpec;
import serbench.methods.ProtobufMethod;
import serbench.methods.Raw;
import serbench.methods.Xml;
import serbench.net.NetAggregate;
import serbench.net.NetFetch;
import serbench.net.NetSortMerge;
import serbench.net.NetTask;
import serbench.tasks.Memory;
import serbench.tasks.Micro;
import serbench.tasks.ReadPar;
import serbench.tasks.ReadRand;
import serbench.tasks.ReadSeq;
import serbench.tasks.SortDedup;
import serbench.tasks.Task;
import serbench.tasks.Write;

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
        MsgpackArrays.SPEC,
        Bson.SPEC,
        ForyMethod.SPEC,
        Xml.SPEC,
        Raw.SPEC,
        ProtobufMethod.SPEC,
        FlatbuffersMethod.SPEC,
        AvroMethod.SPEC);

    /** Every task this driver runs, by id, in info order; `run` finds its task only here. */
    public static final Map<String, Task> TASKS = byId(
        new Write(),
        new ReadSeq(),
        new ReadRand(),
        new ReadPar(),
        new SortDedup(),
        new Memory(),
        new Micro());

    /** Every network task this driver's nodes run (`listen`), by id, in info order. */
    public static final Map<String, NetTask> NET_TASKS = netById(
        new NetFetch(),
        new NetAggregate(),
        new NetSortMerge());

    /** Every task id of the protocol; those this driver does not run are unsupported. */
    public static final List<String> PROTOCOL_TASKS = List.of("write", "read_seq", "read_rand",
        "read_par", "sort_dedup", "memory", "micro", "sizes");

    private static Map<String, Task> byId(Task... tasks) {
        Map<String, Task> byId = new LinkedHashMap<>();
        for (Task t : tasks) {
            // two tasks under one id: one of them would never run
            if (byId.put(t.id(), t) != null) {
                throw new IllegalStateException("two tasks with id " + t.id());
            }
        }
        return Collections.unmodifiableMap(byId);
    }

    private static Map<String, NetTask> netById(NetTask... tasks) {
        Map<String, NetTask> byId = new LinkedHashMap<>();
        for (NetTask t : tasks) {
            if (byId.put(t.id(), t) != null) {
                throw new IllegalStateException("two network tasks with id " + t.id());
            }
        }
        return Collections.unmodifiableMap(byId);
    }

    public static MethodSpec method(String id) {
        return METHODS.stream().filter(m -> m.id().equals(id)).findFirst().orElse(null);
    }
}
