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

    /** The set checksum of the first n objects, as the protocol writes it. */
    public static JsonNode setChecksumOfFirst(String model, int n) throws Exception {
        long sum = 0;
        List<Long> all = hashes(model);
        for (int k = 0; k < n; k++) {
            sum += all.get(k);
        }
        com.fasterxml.jackson.databind.node.ObjectNode c = Json.MAPPER.createObjectNode();
        c.put("count", (long) n);
        c.put("sum", Hasher.hex(sum));
        return c;
    }

    /** The expected set checksum, as {"count", "sum"}. */
    public static JsonNode setChecksum(String model) throws Exception {
        return Json.MAPPER.readTree(DIR.resolve(model + ".expected.json").toFile())
            .get("set_checksum");
    }
}
