package serbench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Properties;
import serbench.methods.MethodSpec;
import serbench.model.Models;
import serbench.tasks.Evict;
import serbench.tasks.Json;

/** `info`: the capability matrix, the JVM and its flags, and the libraries actually loaded. */
public final class Info {
    private Info() {}

    public static final String VERSION = "0.1.0";

    /** group:artifact of every library a method uses, as their jars' pom.properties say. */
    private static final String[][] LIBRARIES = {
        {"com.fasterxml.jackson.core", "jackson-core"},
        {"com.fasterxml.jackson.core", "jackson-databind"},
        {"com.esotericsoftware", "kryo"},
        {"org.msgpack", "jackson-dataformat-msgpack"},
        {"de.undercouch", "bson4jackson"},
        {"org.apache.fory", "fory-core"},
        {"com.thoughtworks.xstream", "xstream"},
        {"com.google.flatbuffers", "flatbuffers-java"},
        {"org.apache.avro", "avro"},
    };

    public static ObjectNode info() {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("language", "java");
        o.put("driver_version", VERSION);
        o.set("toolchain", toolchain());
        ObjectNode libs = o.putObject("libraries");
        for (String[] lib : LIBRARIES) {
            libs.put(lib[1], libraryVersion(lib[0], lib[1]));
        }
        libs.put("protobuf-java", serbench.methods.ProtobufMethod.runtimeVersion());
        ArrayNode models = o.putArray("models");
        Models.ALL.forEach(m -> models.add(m.id));
        ArrayNode tasks = o.putArray("tasks");
        Registry.TASKS.keySet().forEach(tasks::add);
        ArrayNode netTasks = o.putArray("net_tasks");
        Registry.NET_TASKS.keySet().forEach(netTasks::add);
        ObjectNode methods = o.putObject("methods");
        for (MethodSpec m : Registry.METHODS) {
            ObjectNode spec = methods.putObject(m.id());
            ArrayNode depths = spec.putArray("depths");
            m.depths().forEach(d -> depths.add(d.id));
            spec.putArray("variants");
            spec.set("models", models.deepCopy());
            ArrayNode files = spec.putArray("files");
            m.files().forEach(files::add);
            ArrayNode jars = Jars.json(m.id());
            if (jars != null) {
                spec.set("jars", jars);
                spec.set("libraries", Jars.libraries(m.id()));
            }
            spec.set("settings", Json.MAPPER.valueToTree(m.settings()));
            if (!m.writes()) {
                // raw is also the write floor (Write) and the sort floor (SortFloor)
                spec.putArray("floors").add("write").add("sort_dedup");
            }
        }
        o.putArray("eviction").add(Evict.EVICTION);
        o.put("eviction_tool", Evict.TOOL);
        return o;
    }

    /** The JVM's flags; a file a flag names is given by its name (no machine's directories). */
    static String flags() {
        StringBuilder b = new StringBuilder();
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            int eq = flag.indexOf('=');
            String value = eq < 0 ? "" : flag.substring(eq + 1);
            if (value.contains("/")) {
                flag = flag.substring(0, eq + 1) + value.substring(value.lastIndexOf('/') + 1);
            }
            b.append(b.length() == 0 ? "" : " ").append(flag);
        }
        return b.toString();
    }

    private static ObjectNode toolchain() {
        ObjectNode t = Json.MAPPER.createObjectNode();
        t.put("java", System.getProperty("java.version"));
        t.put("vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        t.put("profile", "release");
        t.put("flags", flags());
        ArrayNode gcs = t.putArray("gc");
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs.add(gc.getName());
        }
        t.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
        t.put("processors", Runtime.getRuntime().availableProcessors());
        // the harness warms a JIT's process with its cells before timing them (PROTOCOL.md 3)
        t.put("jit", ManagementFactory.getCompilationMXBean().getName());
        return t;
    }

    /** The version in a library jar's Maven metadata, or "unknown" when it has none. */
    static String libraryVersion(String group, String artifact) {
        String res = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = Info.class.getResourceAsStream(res)) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    static ModelType<?> model(String id) throws Failure {
        ModelType<?> m = ModelType.byId(id);
        if (m == null) {
            StringBuilder known = new StringBuilder();
            Models.ALL.forEach(k -> known.append(known.length() == 0 ? "" : ", ").append(k.id));
            throw Failure.badRequest("unknown model '" + id + "'; known models: " + known);
        }
        return m;
    }
}
