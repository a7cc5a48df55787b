package serbench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.net.URISyntaxException;
import java.security.CodeSource;
import java.util.List;
import java.util.Map;
import serbench.tasks.Json;

/**
 * The library jars each method needs at run time (its Maven runtime closure), found where the
 * JVM loads them from, with their sizes: `info.methods.<id>.jars` for the sizes report. Each
 * jar is named by one class it holds; a method using only the JDK has none.
 */
public final class Jars {
    private Jars() {}

    private static final String JACKSON_CORE = "com.fasterxml.jackson.core.JsonFactory";
    private static final String JACKSON_DATABIND = "com.fasterxml.jackson.databind.ObjectMapper";
    private static final String JACKSON_ANNOTATIONS =
        "com.fasterxml.jackson.annotation.JsonProperty";

    /** Method id to one class of each jar it needs; every registered method has an entry. */
    static final Map<String, List<String>> CLASSES = Map.ofEntries(
        Map.entry("handcoded", List.of()),
        Map.entry("handcoded_be", List.of()),
        Map.entry("handcoded_direct", List.of()),
        Map.entry("handcoded_unsafe", List.of()),
        Map.entry("java_builtin", List.of()),
        Map.entry("java_externalizable", List.of()),
        Map.entry("raw", List.of()),
        Map.entry("kryo", List.of("com.esotericsoftware.kryo.Kryo",
            "com.esotericsoftware.reflectasm.FieldAccess", "org.objenesis.Objenesis",
            "com.esotericsoftware.minlog.Log")),
        Map.entry("json", List.of(JACKSON_CORE)),
        Map.entry("json_gzip", List.of(JACKSON_CORE)),
        Map.entry("msgpack", List.of("org.msgpack.jackson.dataformat.MessagePackFactory",
            "org.msgpack.core.MessagePack", JACKSON_CORE, JACKSON_DATABIND,
            JACKSON_ANNOTATIONS)),
        Map.entry("msgpack_arrays", List.of("org.msgpack.core.MessagePack")),
        Map.entry("bson", List.of("de.undercouch.bson4jackson.BsonFactory", JACKSON_CORE,
            JACKSON_DATABIND, JACKSON_ANNOTATIONS)),
        Map.entry("fory", List.of("org.apache.fory.Fory", "org.codehaus.janino.SimpleCompiler",
            "org.codehaus.commons.compiler.CompileException")),
        Map.entry("xml", List.of("com.thoughtworks.xstream.XStream",
            "io.github.xstream.mxparser.MXParser", "org.xmlpull.v1.XmlPullParser")),
        Map.entry("protobuf", List.of("com.google.protobuf.Message")),
        Map.entry("flatbuffers", List.of("com.google.flatbuffers.FlatBufferBuilder")),
        Map.entry("avro", List.of("org.apache.avro.Schema", JACKSON_CORE, JACKSON_DATABIND,
            JACKSON_ANNOTATIONS, "org.slf4j.Logger")));

    /** `[{name, bytes}]` of the method's jars, or null for a method missing from CLASSES. */
    public static ArrayNode json(String method) {
        List<String> classes = CLASSES.get(method);
        if (classes == null) {
            return null;
        }
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (String name : classes) {
            File jar = jarOf(name);
            ObjectNode j = out.addObject();
            j.put("name", jar.getName());
            j.put("bytes", jar.length());
        }
        return out;
    }

    /** `{artifact: version}` of the method's jars, from their Maven file names
     *  (`kryo-5.6.2.jar`), or null for a method missing from CLASSES; `{}` for the JDK's own. */
    public static ObjectNode libraries(String method) {
        List<String> classes = CLASSES.get(method);
        if (classes == null) {
            return null;
        }
        ObjectNode out = Json.MAPPER.createObjectNode();
        for (String name : classes) {
            String[] artifactVersion = artifactVersion(jarOf(name).getName());
            out.put(artifactVersion[0], artifactVersion[1]);
        }
        return out;
    }

    /** `kryo-5.6.2.jar` as {kryo, 5.6.2}: Maven names a jar artifactId-version.jar, and the
     *  version is the part from the first '-' followed by a digit. */
    static String[] artifactVersion(String jarName) {
        String stem = jarName.endsWith(".jar") ? jarName.substring(0, jarName.length() - 4)
            : jarName;
        for (int i = 0; i + 1 < stem.length(); i++) {
            if (stem.charAt(i) == '-' && Character.isDigit(stem.charAt(i + 1))) {
                return new String[] {stem.substring(0, i), stem.substring(i + 1)};
            }
        }
        return new String[] {stem, "unknown"};  // a class directory (a development build)
    }

    /** The jar (or class directory) the class is loaded from, without initializing it. */
    static File jarOf(String className) {
        try {
            Class<?> c = Class.forName(className, false, Jars.class.getClassLoader());
            CodeSource source = c.getProtectionDomain().getCodeSource();
            return new File(source.getLocation().toURI());
        } catch (ClassNotFoundException | URISyntaxException e) {
            throw new IllegalStateException("library class " + className + " is not on the "
                + "class path: " + e.getMessage(), e);
        }
    }
}
