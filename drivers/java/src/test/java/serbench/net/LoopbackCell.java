package serbench.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import serbench.Failure;
import serbench.IoTimer;
import serbench.tasks.Json;

/**
 * A network cell on loopback for the tests, driven as the harness drives it (PROTOCOL.md
 * 10.4): every node is `Node.listen` on a thread of this JVM, reached only through its
 * socket; setup, connect, go per repetition, shutdown.
 */
final class LoopbackCell implements AutoCloseable {
    /** One node: its name, setup and whom it dials (by name), how many dial it. */
    record Spec(String name, String role, ObjectNode params, List<String> dial, int accept) {}

    /** The cell's token, which every node is started with and every hello carries. */
    static final String TOKEN = "0123456789abcdef0123456789abcdef";

    private final Map<String, Spec> specs = new LinkedHashMap<>();
    private final Map<String, Link> control = new LinkedHashMap<>();
    private final Map<String, String> addresses = new LinkedHashMap<>();
    private final Map<String, int[]> exits = new LinkedHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private final ObjectNode cell;

    /** `cell`: task, method, model, variant and depth, as every setup carries them. */
    LoopbackCell(String task, String method, String model, String variant) {
        cell = Json.MAPPER.createObjectNode().put("op", "setup").put("task", task)
            .put("method", method).put("model", model).put("variant", variant)
            .put("depth", "materialize");
    }

    void add(Spec spec) throws Exception {
        specs.put(spec.name(), spec);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        int[] exit = {-1};
        Thread t = new Thread(() -> exit[0] = Node.listen("127.0.0.1:0", false, TOKEN, out),
            spec.name());
        t.setDaemon(true);
        t.start();
        threads.add(t);
        exits.put(spec.name(), exit);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!printed.toString(StandardCharsets.UTF_8).contains("\n")) {
            assertTrue(System.nanoTime() < deadline, spec.name() + " printed no address");
            Thread.sleep(2);
        }
        JsonNode line = Json.MAPPER.readTree(printed.toString(StandardCharsets.UTF_8));
        String address = line.get("address").asText();
        assertTrue(line.get("pid").asLong() > 0);
        addresses.put(spec.name(), address);
        SocketChannel c = SocketChannel.open(Node.parseAddress(address));
        Link link = new Link(spec.name(), c, 20_000);
        new Hello("control", "harness", List.of("", "", "", ""), TOKEN).send(link,
            new IoTimer());
        control.put(spec.name(), link);
    }

    /** A connection to `name` that has sent a data hello of this cell carrying `token`. */
    Link knock(String name, String token) throws Exception {
        Link link = new Link(name, SocketChannel.open(Node.parseAddress(addresses.get(name))),
            5_000);
        List<String> speaks = Hello.FIELDS.stream().map(f -> cell.path(f).asText()).toList();
        new Hello("data", "stranger", speaks, token).send(link, new IoTimer());
        return link;
    }

    /** Setup and connect every node; the answers each sends. */
    void wire(Map<String, ObjectNode> setups) throws Exception {
        for (Spec s : specs.values()) {
            ObjectNode setup = setups.getOrDefault(s.name(), cell).deepCopy();
            setup.put("role", s.role()).put("name", s.name()).set("params", s.params());
            control.get(s.name()).sendJson(FrameKind.CONTROL, setup, new IoTimer());
        }
        expect("prepared");
        for (Spec s : specs.values()) {
            ObjectNode connect = Json.MAPPER.createObjectNode().put("op", "connect")
                .put("accept", s.accept());
            ArrayNode dial = connect.putArray("dial");
            for (String d : s.dial()) {
                dial.addObject().put("name", d).put("address", addresses.get(d));
            }
            control.get(s.name()).sendJson(FrameKind.CONTROL, connect, new IoTimer());
        }
        expect("ready");
    }

    void wire() throws Exception {
        wire(Map.of());
    }

    /** One repetition: go to every node, then every node's report by name. */
    Map<String, ObjectNode> go(int rep) throws Exception {
        ObjectNode go = Json.MAPPER.createObjectNode().put("op", "go").put("rep", rep)
            .put("warmup", false);
        for (Link link : control.values()) {
            link.sendJson(FrameKind.CONTROL, go, new IoTimer());
        }
        return expect("report");
    }

    private Map<String, ObjectNode> expect(String op) throws Failure {
        Map<String, ObjectNode> answers = new LinkedHashMap<>();
        for (Map.Entry<String, Link> e : control.entrySet()) {
            ObjectNode answer = e.getValue().recvJson(FrameKind.CONTROL, new IoTimer());
            assertEquals(op, answer.path("op").asText(), answer.toString());
            answers.put(e.getKey(), answer);
        }
        return answers;
    }

    /** Shuts every node down; each must exit 0. */
    void shutdown() throws Exception {
        ObjectNode bye = Json.MAPPER.createObjectNode().put("op", "shutdown");
        for (Link link : control.values()) {
            link.sendJson(FrameKind.CONTROL, bye, new IoTimer());
        }
        for (Thread t : threads) {
            t.join(10_000);
        }
        exits.forEach((name, exit) -> assertEquals(0, exit[0], name + " exit status"));
    }

    Link control(String name) {
        return control.get(name);
    }

    /** The exit status of a node that ended (waits up to 10 s). */
    int exit(String name) throws InterruptedException {
        threads.get(new ArrayList<>(specs.keySet()).indexOf(name)).join(10_000);
        return exits.get(name)[0];
    }

    @Override
    public void close() {
        control.values().forEach(Link::close);
    }
}
