package serbench.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import serbench.Depth;
import serbench.ModelType;
import serbench.Params;
import serbench.Registry;
import serbench.Vectors;
import serbench.methods.MethodSpec;

/** micro: every pass decodes the vectors' set checksum, in both buffer modes. */
class MicroTest {
    @ParameterizedTest
    @CsvSource({"handcoded,tweet,access,fresh", "handcoded,tweet,materialize,reused",
        "handcoded_direct,org,access,fresh", "handcoded_direct,org,access,reused",
        "kryo,trade,materialize,fresh", "json_gzip,part,materialize,reused"})
    void passesReadTheSetChecksum(String method, String model, String depth, String buffer)
            throws Exception {
        ObjectNode p = Json.MAPPER.createObjectNode();
        p.put("input", Vectors.jsonl(model).toString());
        p.put("n", 2);
        p.put("iterations", 2);
        p.put("buffer", buffer);
        p.put("cold", false);
        p.put("warmups", 1);
        p.put("repetitions", 2);
        JsonNode r = run(Registry.method(method), ModelType.byId(model), Depth.parse(depth),
            new Params(p));
        JsonNode want = Vectors.setChecksumOfFirst(model, 2);
        assertEquals(want, r.get("checksum"));
        assertEquals(3, r.get("samples").size());
        for (JsonNode s : r.get("samples")) {
            assertTrue(s.get("encode_ns").asLong() > 0 && s.get("decode_ns").asLong() > 0);
        }
        assertTrue(r.get("counters").get("encoded_bytes").asLong() > 0);
    }

    @org.junit.jupiter.api.Test
    void warmUpsGoOnForWarmupMsAndAreNumberedOn() throws Exception {
        ObjectNode p = Json.MAPPER.createObjectNode();
        p.put("input", Vectors.jsonl("trade").toString());
        p.put("n", 1);
        p.put("iterations", 1);
        p.put("buffer", "reused");
        p.put("cold", false);
        p.put("warmups", 1);
        p.put("warmup_ms", 50);
        p.put("repetitions", 2);
        JsonNode r = run(Registry.method("handcoded"), ModelType.byId("trade"),
            Depth.MATERIALIZE, new Params(p));
        java.util.List<Long> warm = new java.util.ArrayList<>();
        java.util.List<Long> measured = new java.util.ArrayList<>();
        for (JsonNode s : r.get("samples")) {
            (s.get("warmup").asBoolean() ? warm : measured).add(s.get("rep").asLong());
        }
        assertTrue(warm.size() > 1, "one warm-up asked, more to fill the 50 ms");
        for (int i = 0; i < warm.size(); i++) {
            assertEquals(i, warm.get(i));
        }
        assertEquals(java.util.List.of(0L, 1L), measured);
    }

    @org.junit.jupiter.api.Test
    void warmUpsGoOnUntilTheJitIsQuietOrTheMaximumHasPassed() throws Exception {
        ObjectNode p = Json.MAPPER.createObjectNode();
        p.put("input", Vectors.jsonl("trade").toString());
        p.put("n", 2);
        p.put("iterations", 1);
        p.put("buffer", "fresh");
        p.put("cold", false);
        p.put("warmups", 1);
        // the compiler threads of a test JVM may stay busy: keep the bound short
        p.put("warmup_max_ms", 1000);
        p.put("repetitions", 2);
        JsonNode r = run(Registry.method("json"), ModelType.byId("trade"), Depth.MATERIALIZE,
            new Params(p));
        // the asked warm-up and the measured repetitions have samples, with the task's own
        // figures; the warm-ups that only waited for the JIT are one summary
        java.util.List<Boolean> kinds = new java.util.ArrayList<>();
        for (JsonNode s : r.get("samples")) {
            assertTrue(s.get("jit_ms").asLong() >= 0);
            // the compiler threads' CPU time, where Linux says it (a running compile counts)
            assertEquals(CompilerThreadsTest.SCHEDSTAT, s.has("jit_cpu_ns"), s.toString());
            assertTrue(s.path("jit_cpu_ns").asLong() >= 0, s.toString());
            assertTrue(s.get("encode_ns").asLong() > 0 && s.get("decode_ns").asLong() > 0);
            kinds.add(s.get("warmup").asBoolean());
        }
        assertEquals(java.util.List.of(true, false, false), kinds);
        // warm-ups beyond the one asked, waiting for the JIT to be quiet: their summary
        JsonNode jit = r.get("jit_warmup");
        assertTrue(jit.get("repetitions").asLong() > 0, jit.toString());
        assertTrue(jit.get("jit_ms").asLong() >= 0, jit.toString());
    }

    private static <T> ObjectNode run(MethodSpec method, ModelType<T> model, Depth depth,
            Params params) throws Exception {
        return new Micro().run(method.codec(model), method, model, depth, params);
    }
}
