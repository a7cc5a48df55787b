package serbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import serbench.methods.MethodSpec;

/** info's files and jars: what the sizes report counts for each method. */
class JarsTest {
    private static final Path REPO = Vectors.DIR.getParent();
    private static final Pattern IMPORT = Pattern.compile("^import ([\\w.]+);", Pattern.MULTILINE);

    @Test
    void everyMethodListsItsFilesAndTheJarsOfEveryLibraryItImports() throws Exception {
        JsonNode methods = Info.info().get("methods");
        for (MethodSpec m : Registry.METHODS) {
            JsonNode jars = methods.get(m.id()).get("jars");
            assertNotNull(jars, m.id() + " has no entry in Jars.CLASSES");
            Set<String> names = new HashSet<>();
            for (JsonNode j : jars) {
                assertTrue(j.get("bytes").asLong() > 0, j.toString());
                names.add(j.get("name").asText());
            }
            assertEquals(jars.size(), names.size(), m.id() + " lists a jar twice");
            for (String file : m.files()) {
                String source = Files.readString(REPO.resolve(file));
                Matcher imports = IMPORT.matcher(source);
                while (imports.find()) {
                    String cls = imports.group(1);
                    if (library(cls)) {
                        File jar = Jars.jarOf(cls);
                        assertTrue(names.contains(jar.getName()),
                            m.id() + " imports " + cls + " from " + jar.getName()
                                + ", not among its jars " + names);
                    }
                }
            }
        }
    }

    /** A class from a jar on the class path (not the JDK, not this driver). */
    private static boolean library(String cls) throws ClassNotFoundException {
        return !cls.startsWith("serbench.")
            && Class.forName(cls, false, JarsTest.class.getClassLoader()).getProtectionDomain()
                .getCodeSource() != null;
    }

    @Test
    void everyMethodNamesTheLibrariesOfItsJarsWithTheirVersions() {
        JsonNode methods = Info.info().get("methods");
        for (MethodSpec m : Registry.METHODS) {
            JsonNode libraries = methods.get(m.id()).get("libraries");
            assertNotNull(libraries, m.id());
            assertEquals(methods.get(m.id()).get("jars").size(), libraries.size(), m.id());
            libraries.fields().forEachRemaining(e -> assertTrue(
                e.getValue().asText().matches("\\d+(\\.\\d+)*([.-][\\w.]+)?"),
                m.id() + ": " + e.getKey() + " " + e.getValue()));
        }
        assertEquals("{}", methods.get("java_builtin").get("libraries").toString());
        assertEquals(Info.libraryVersion("com.esotericsoftware", "kryo"),
            methods.get("kryo").get("libraries").get("kryo").asText());
    }

    @Test
    void aJarNameSplitsIntoArtifactAndVersion() {
        assertEquals(List.of("kryo", "5.6.2"), List.of(Jars.artifactVersion("kryo-5.6.2.jar")));
        assertEquals(List.of("protobuf-java", "4.36.2"),
            List.of(Jars.artifactVersion("protobuf-java-4.36.2.jar")));
        assertEquals(List.of("xmlpull", "1.1.3.1"),
            List.of(Jars.artifactVersion("xmlpull-1.1.3.1.jar")));
        assertEquals(List.of("classes", "unknown"), List.of(Jars.artifactVersion("classes")));
    }

    @Test
    void theJarsAreWhereTheClassesLoadFrom() {
        File kryo = Jars.jarOf("com.esotericsoftware.kryo.Kryo");
        assertTrue(kryo.getName().startsWith("kryo-") && kryo.getName().endsWith(".jar"));
        assertEquals(List.of(), List.copyOf(Jars.CLASSES.get("handcoded")));
    }
}
