package serbench.net;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import serbench.Failure;
import serbench.IoTimer;
import serbench.ModelType;
import serbench.Registry;
import serbench.methods.MethodSpec;
import serbench.tasks.Json;
import serbench.tasks.Reads;
import serbench.tasks.Repetitions;
import serbench.tasks.Rss;

/**
 * One node of a network cell (PROTOCOL.md 10): bind, print the bound address, take the
 * harness's control connection, then `setup` → `prepared`, `connect` → `ready`, and per
 * repetition `go` → `report`, until `shutdown`. Any failure, whatever throwable it was, is
 * sent to the harness and to every peer (so they stop at once instead of timing out), and the
 * node exits non-zero. Only connections whose hello carries the cell's token are admitted: a
 * stranger is refused and logged, and never delays the peer ({@link Door}).
 */
public final class Node {
    /** How long a node waits for the harness to connect. */
    static final long CONTROL_WAIT_MS = 60_000;
    /** How long it waits for the harness's next message (a dead harness closes at once). */
    static final long CONTROL_IDLE_MS = 3_600_000;
    /** The environment variable that gives a node its cell's token (never the command line). */
    public static final String TOKEN_ENV = "SERBENCH_NODE_TOKEN";

    private final Door door;
    private final String token;
    private Link control;
    private String name = "";
    private List<String> speaks = List.of("", "", "", "");
    private long peerTimeoutMs = CONTROL_WAIT_MS;
    /** The largest frame on a link to a peer (`params.net_frame_bytes`). */
    private int frameLimit = Wire.MAX_FRAME;
    private Links links = new Links();

    private Node(Door door, String token) {
        this.door = door;
        this.token = token;
    }

    /**
     * `listen --address HOST:PORT [--allow-wildcard]`: runs one node, which admits only
     * connections presenting `token`; its exit status (0 after shutdown, 1 without a token,
     * on an address {@link Door#listenAddresses} refuses or after any failure).
     */
    public static int listen(String address, boolean allowWildcard, String token,
            PrintStream out) {
        if (token == null || token.isEmpty()) {
            System.err.println("serbench-java listen: " + TOKEN_ENV + " is empty or not set: a "
                + "node admits only peers presenting its cell's token");
            return 1;
        }
        Door door;
        try {
            door = Door.bind(address, allowWildcard);
        } catch (Failure f) {
            System.err.println("serbench-java listen: " + f.kind + ": " + f.getMessage());
            return 1;
        }
        try (door) {
            return new Node(door, token).run(out);
        }
    }

    /** Prints the bound address, then serves the harness; the exit status. */
    private int run(PrintStream out) {
        try {
            ObjectNode hello = Json.MAPPER.createObjectNode();
            hello.put("address", Door.format(door.localAddress()));
            hello.put("pid", ProcessHandle.current().pid());
            out.println(Json.MAPPER.writeValueAsString(hello));
            out.flush();
            control = acceptControl();
            setupAndRun();
            return 0;
        } catch (Throwable t) {
            Failure f = asFailure(t);
            System.err.println("serbench-java listen: " + f.kind + ": " + f.getMessage());
            if (control != null) {
                control.sendError(f);
            }
            for (Link link : links.all()) {
                link.sendError(f);
            }
            return 1;
        }
    }

    /** Any throwable as the failure to report: a caught exception is `internal`. */
    static Failure asFailure(Throwable t) {
        if (t instanceof Failure f) {
            return f;
        }
        if (!(t instanceof Exception)) {
            t.printStackTrace();
        }
        return Failure.internal(t.getClass().getSimpleName() + ": " + Reads.describe(t));
    }

    /** A peer's `HOST:PORT`, to dial. */
    static InetSocketAddress parseAddress(String address) throws Failure {
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            throw Failure.badRequest("'" + address + "' is not HOST:PORT");
        }
        String host = address.substring(0, colon).replace("[", "").replace("]", "");
        if (host.isEmpty()) {
            throw Failure.badRequest("'" + address + "' names no host");
        }
        try {
            return new InetSocketAddress(host, Integer.parseInt(address.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw Failure.badRequest("'" + address + "' is not HOST:PORT: " + e.getMessage());
        }
    }

    private Link acceptControl() throws Failure {
        Door.Admitted a = door.admit(token, System.nanoTime() + CONTROL_WAIT_MS * 1_000_000L,
            "the harness");
        Link link = a.link();
        link.peer = "harness at " + link.peer;
        if (!a.hello().role().equals("control")) {
            throw Wire.peerFailure(link.peer, "dialed before the harness did");
        }
        link.setTimeout(CONTROL_IDLE_MS);
        return link;
    }

    private void setupAndRun() throws Exception {
        ObjectNode message = control.recvJson(FrameKind.CONTROL, new IoTimer());
        if (!"setup".equals(message.path("op").asText())) {
            throw Failure.badRequest("expected setup, got " + message);
        }
        Setup setup = Setup.parse(message);
        name = setup.name();
        peerTimeoutMs = setup.peerTimeoutMs();
        frameLimit = setup.netFrameBytes();
        speaks = setup.speaks();
        ModelType<?> model = ModelType.byId(setup.model());
        if (model == null) {
            throw Failure.badRequest("unknown model '" + setup.model() + "'");
        }
        MethodSpec method = Registry.method(setup.method());
        if (method == null) {
            throw Failure.badRequest("unknown method '" + setup.method() + "'");
        }
        NetTask task = Registry.NET_TASKS.get(setup.task());
        if (task == null) {
            throw Failure.unsupported("this driver does not run task '" + setup.task() + "'");
        }
        if (!method.writes()) {
            // every role encodes or serves the method's own objects; a floor has none
            throw Failure.unsupported(method.id() + " reads other methods' files; it has no "
                + "objects of its own to serve, sum or sort");
        }
        drive(roleOf(task, method, model, setup));
    }

    private static <T> Role roleOf(NetTask task, MethodSpec method, ModelType<T> model,
            Setup setup) throws Exception {
        return task.role(method.codec(model), method, model, setup);
    }

    /** Tells the harness the data is loaded, wires the links, answers every `go`. */
    private void drive(Role role) throws Exception {
        control.sendJson(FrameKind.CONTROL, op("prepared"), new IoTimer());
        links = connect();
        role.checkLinks(links);
        control.sendJson(FrameKind.CONTROL, op("ready"), new IoTimer());
        while (true) {
            ObjectNode message = control.recvJson(FrameKind.CONTROL, new IoTimer());
            switch (message.path("op").asText()) {
                case "go":
                    control.sendJson(FrameKind.CONTROL, repetition(role, message),
                        new IoTimer());
                    break;
                case "shutdown":
                    return;
                default:
                    throw Failure.badRequest("expected go or shutdown, got " + message);
            }
        }
    }

    private static ObjectNode op(String op) {
        return Json.MAPPER.createObjectNode().put("op", op);
    }

    /** One repetition of the role, timed from `go` to the end of this node's part. */
    private ObjectNode repetition(Role role, JsonNode go) throws Exception {
        long sent = links.bytesSent();
        long received = links.bytesReceived();
        IoTimer timer = new IoTimer();
        long[] jitBefore = Repetitions.jitNow();
        long start = System.nanoTime();
        Role.Outcome outcome = role.repetition(links, timer);
        long total = System.nanoTime() - start;
        long[] jitAfter = Repetitions.jitNow();
        long io = Math.min(timer.ns(), total);
        ObjectNode r = op("report");
        r.put("node", name);
        r.set("rep", go.get("rep"));
        r.set("warmup", go.get("warmup"));
        r.put("total_ns", total);
        r.put("io_ns", io);
        r.put("cpu_ns", total - io);
        r.put("bytes_sent", links.bytesSent() - sent);
        r.put("bytes_received", links.bytesReceived() - received);
        r.put("objects", outcome.objects);
        r.set("checksum", outcome.checksum == null ? null : outcome.checksum.json());
        r.put("peak_rss_bytes", peakRss());
        // what the JIT did meanwhile, as a driver's sample says it (PROTOCOL.md 5, 10.4):
        // the harness judges each node's steady state from it
        Repetitions.putJit(r, jitBefore, jitAfter);
        r.setAll(outcome.extra);
        return r;
    }

    private static long peakRss() {
        try {
            return Rss.peak();
        } catch (Failure f) {
            return 0;
        }
    }

    /**
     * Dials the peers the harness lists (in the background: two nodes may dial each other's
     * listeners at once), accepts as many as it says will dial, and checks every hello.
     */
    private Links connect() throws Exception {
        ObjectNode message = control.recvJson(FrameKind.CONTROL, new IoTimer());
        if (!"connect".equals(message.path("op").asText())) {
            throw Failure.badRequest("expected connect, got " + message);
        }
        long accept = message.path("accept").asLong(0);
        List<String[]> dials = new ArrayList<>();
        for (JsonNode peer : message.path("dial")) {
            if (!peer.path("name").isTextual() || !peer.path("address").isTextual()) {
                throw Failure.badRequest("a malformed peer in connect: " + peer);
            }
            dials.add(new String[] {peer.get("name").asText(), peer.get("address").asText()});
        }
        Hello me = new Hello("data", name, speaks, token);
        Links made = new Links();
        links = made; // a failure from here on is sent to whoever is connected already
        Callable<List<Link>> dialing = () -> {
            List<Link> dialed = new ArrayList<>();
            for (String[] d : dials) {
                dialed.add(dial(d[0], d[1], me, peerTimeoutMs));
            }
            return dialed;
        };
        FutureTask<List<Link>> dialer = new FutureTask<>(dialing);
        Thread t = new Thread(dialer, "dialer");
        t.setDaemon(true);
        t.start();
        long deadline = System.nanoTime() + peerTimeoutMs * 1_000_000L;
        for (long i = 0; i < accept; i++) {
            made.accepted.add(acceptPeer(deadline, me));
        }
        door.shut();
        made.accepted.sort((a, b) -> Arrays.compareUnsigned(a.peer.getBytes(
            StandardCharsets.UTF_8), b.peer.getBytes(StandardCharsets.UTF_8)));
        try {
            made.dialed.addAll(dialer.get());
        } catch (java.util.concurrent.ExecutionException e) {
            throw asFailure(e.getCause());
        }
        // past the hellos, frames between data nodes are bounded by the cell's limit
        for (Link link : made.dialed) {
            link.setMaxFrame(frameLimit);
        }
        for (Link link : made.accepted) {
            link.setMaxFrame(frameLimit);
        }
        return made;
    }

    private Link acceptPeer(long deadline, Hello me) throws Failure {
        Door.Admitted a = door.admit(token, deadline, "a peer the harness announced");
        Link link = a.link();
        Hello hello = a.hello();
        link.setTimeout(peerTimeoutMs);
        IoTimer timer = new IoTimer();
        try {
            if (!hello.role().equals("data")) {
                throw Wire.peerFailure(link.peer, "a '" + hello.role()
                    + "' hello on a data connection");
            }
            hello.checkSpeaks(speaks, hello.from() + " (" + link.peer + ")");
        } catch (Failure f) {
            link.sendError(f);
            throw f;
        }
        me.send(link, timer);
        link.peer = hello.from();
        return link;
    }

    private static Link dial(String name, String address, Hello me, long timeoutMs)
            throws Failure {
        InetSocketAddress target;
        try {
            target = parseAddress(address);
        } catch (Failure f) {
            throw Wire.peerFailure(name, "'" + address + "' is not an address");
        }
        SocketChannel channel;
        try {
            channel = SocketChannel.open();
            channel.socket().connect(target, (int) Math.min(Integer.MAX_VALUE, timeoutMs));
        } catch (IOException e) {
            throw Wire.peerFailure(name, "cannot connect to " + address + ": " + e.getMessage());
        }
        Link link = new Link(name, channel, timeoutMs);
        IoTimer timer = new IoTimer();
        me.send(link, timer);
        Hello answer = Hello.receive(link, timer);
        if (!Hello.sameToken(answer.token(), me.token())) {
            throw Wire.peerFailure(name, "answered without this cell's token");
        }
        answer.checkSpeaks(me.speaks(), name);
        return link;
    }
}
