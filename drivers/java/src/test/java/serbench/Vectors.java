package serbench;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import serbench.tasks.Json;

/** The golden vectors of the repository (vectors/<model>.jsonl and .expected.json). */
public final class Vectors {
    private Vectors() {}

    public static final Path DIR = Path.of(System.getProperty("basedir", "."))
        .resolve("../../vectors").normalize();

    public static Path jsonl(String model) {
        return DIR.resolve(model + ".jsonl");
    }

    public static List<Long> hashes(String model) throws Exception {
        JsonNode doc = Json.MAPPER.readTree(DIR.resolve(model + ".expected.json").toFile());
        List<Long> out = new ArrayList<>();
        for (JsonNode o : doc.get("objects")) {
            out.add(Long.parseUnsignedLong(o.get("hash").asText(), 16));
        }
        return out;
    }

    /** The expected set checksum, as {"count", "sum"}. */
    public static JsonNode setChecksum(String model) throws Exception {
        return Json.MAPPER.readTree(DIR.resolve(model + ".expected.json").toFile())
            .get("set_checksum");
    }
}
