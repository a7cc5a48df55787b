package serbench.net;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import serbench.Failure;

/**
 * A node's door (PROTOCOL.md 10.1, 10.2): its listener, bound only where the node is told, and
 * the connections still saying hello. Every pending hello is read side by side through one
 * selector, each against its own deadline for the whole hello (5 s from the accept), so a
 * stranger, silent or sending a byte at a time, delays no one: the harness and the peers are
 * admitted as soon as their hellos arrive, however many strangers are waiting.
 */
final class Door implements AutoCloseable {
    /** How long a fresh connection may take to send its whole hello. */
    static final long HELLO_WAIT_MS = 5_000;
    /**
     * How many connections may be saying hello at once; past it the oldest is dropped (it has
     * had the longest to speak, and a peer says hello as soon as it has connected).
     */
    private static final int MAX_PENDING = 512;
    /** The listen queue: room for a flood of strangers arriving while the node loads its data. */
    private static final int BACKLOG = 1024;
    /** The refusals of `listenAddresses`, worded alike in every language. */
    static final String NOT_A_PORT = "the port must be a number in 0-65535";
    static final String WILDCARD = "an empty or wildcard host (0.0.0.0, ::) listens on every "
        + "interface; --allow-wildcard allows it";

    /** A connection whose hello carried this node's token, and that hello. */
    record Admitted(Link link, Hello hello) {}

    private final ServerSocketChannel listener;
    private final Selector selector;
    /** The connections saying hello, oldest first. */
    private final ArrayDeque<Knock> pending = new ArrayDeque<>();

    private Door(ServerSocketChannel listener) throws IOException {
        this.listener = listener;
        selector = Selector.open();
        listener.configureBlocking(false);
        listener.register(selector, SelectionKey.OP_ACCEPT);
    }

    /** Listens on the first of `address`'s addresses that binds (`listenAddresses`). */
    static Door bind(String address, boolean allowWildcard) throws Failure {
        String why = "";
        for (InetSocketAddress target : listenAddresses(address, allowWildcard)) {
            ServerSocketChannel listener = null;
            try {
                listener = ServerSocketChannel.open(family(target));
                listener.bind(target, BACKLOG);
                return new Door(listener);
            } catch (IOException | RuntimeException e) {
                closeQuietly(listener);
                why = e instanceof UnsupportedOperationException
                    ? "this JVM's sockets have no IPv6" : e.toString();
            }
        }
        throw refusal(address, why);
    }

    /** The address's own family: an IPv4 address on a dual-stack socket would be IPv6's too. */
    private static StandardProtocolFamily family(InetSocketAddress a) {
        return a.getAddress() instanceof Inet4Address ? StandardProtocolFamily.INET
            : StandardProtocolFamily.INET6;
    }

    /**
     * Where `listen --address HOST:PORT` binds, in the order to try: refused when the port is
     * not a number in 0-65535, or, unless `allowWildcard`, when the host is empty or names a
     * wildcard address (every interface: 0.0.0.0, ::, ::ffff:0.0.0.0). Every language checks
     * and says the same.
     */
    static List<InetSocketAddress> listenAddresses(String address, boolean allowWildcard)
            throws Failure {
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            throw refusal(address, "not HOST:PORT");
        }
        String host = address.substring(0, colon);
        if (host.length() >= 2 && host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = port(address.substring(colon + 1));
        if (port < 0) {
            throw refusal(address, NOT_A_PORT);
        }
        if (host.isEmpty() && !allowWildcard) {
            throw refusal(address, WILDCARD);
        }
        InetAddress[] found;
        try {
            // every interface: IPv6's wildcard takes IPv4 too; IPv4's where there is no IPv6
            found = host.isEmpty() ? new InetAddress[] {InetAddress.getByName("::"),
                InetAddress.getByName("0.0.0.0")} : InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw refusal(address, "unknown host");
        }
        if (!allowWildcard && Arrays.stream(found).anyMatch(InetAddress::isAnyLocalAddress)) {
            throw refusal(address, WILDCARD);
        }
        return Arrays.stream(found).map(a -> new InetSocketAddress(a, port)).toList();
    }

    /** A port: decimal digits only, at most 65535; -1 otherwise. */
    private static int port(String text) {
        if (!text.matches("[0-9]+")) {
            return -1;
        }
        String digits = text.replaceFirst("^0+(?=.)", "");
        int port = digits.length() <= 5 ? Integer.parseInt(digits) : -1;
        return port <= 65535 ? port : -1;
    }

    private static Failure refusal(String address, String why) {
        return Failure.badRequest("cannot listen on '" + address + "': " + why);
    }

    InetSocketAddress localAddress() throws IOException {
        return (InetSocketAddress) listener.getLocalAddress();
    }

    /**
     * The next connection whose hello carries `token`, admitted before `deadline`
     * (System.nanoTime), and its hello (`whom`: who was expected, for the failure); strangers
     * are refused meanwhile.
     */
    Admitted admit(String token, long deadline, String whom) throws Failure {
        try {
            while (true) {
                Admitted a = step(token);
                if (a != null) {
                    return a;
                }
                long now = System.nanoTime();
                if (now - deadline >= 0) {
                    throw new Failure("network", whom + " did not connect in time");
                }
                long first = deadline;
                for (Knock k : pending) {
                    if (k.deadline - first < 0) {
                        first = k.deadline;
                    }
                }
                // rounded up, so the loop never spins just short of a deadline
                selector.select(Math.max(1, (first - now + 999_999) / 1_000_000));
            }
        } catch (IOException e) {
            throw Failure.internal("admitting " + whom + ": " + e);
        }
    }

    /** Refuses every connection still saying hello: the node admits no one after its peers. */
    void shut() {
        while (!pending.isEmpty()) {
            Knock k = pending.poll();
            k.refuse(Wire.peerFailure(k.from, "this node admits no one after its peers"));
        }
    }

    /**
     * Reads what arrived on the pending connections, then accepts every new one: the first
     * admitted, if any (the others stay pending, the refused are closed).
     */
    private Admitted step(String token) throws IOException, Failure {
        Set<SelectionKey> ready = selector.selectedKeys();
        long now = System.nanoTime();
        try {
            for (Iterator<Knock> it = pending.iterator(); it.hasNext(); ) {
                Knock k = it.next();
                Admitted a = settle(k, now, ready.contains(k.key), token);
                if (a != null || !k.channel.isOpen()) { // admitted, or refused and closed
                    it.remove();
                }
                if (a != null) {
                    return a;
                }
            }
        } finally {
            // still-readable ones are selected again at the next select
            ready.clear();
        }
        return acceptNew(token);
    }

    private Admitted acceptNew(String token) throws IOException, Failure {
        SocketChannel c;
        while ((c = listener.accept()) != null) {
            c.configureBlocking(false);
            Knock k = new Knock(c, c.register(selector, SelectionKey.OP_READ));
            // its hello may be here already: a peer sends it as soon as it has connected
            Admitted a = settle(k, System.nanoTime(), true, token);
            if (a != null) {
                return a;
            }
            if (k.channel.isOpen()) {
                pending.add(k);
            }
            if (pending.size() > MAX_PENDING) {
                Knock oldest = pending.poll();
                oldest.refuse(Wire.peerFailure(oldest.from,
                    "too many connections are saying hello"));
            }
        }
        return null;
    }

    /**
     * Admits a connection whose hello carries `token`, refuses (and closes) one that failed
     * or whose deadline passed; null for both, and for one still saying hello.
     */
    private Admitted settle(Knock k, long now, boolean readable, String token)
            throws Failure {
        try {
            if (now - k.deadline >= 0) {
                throw Wire.peerFailure(k.from, "no complete hello within 5 s");
            }
            Hello hello = readable ? k.hear(token) : null;
            return hello == null ? null : new Admitted(k.admitted(), hello);
        } catch (Failure refusal) {
            k.refuse(refusal);
            return null;
        }
    }

    @Override
    public void close() {
        pending.forEach(k -> closeQuietly(k.channel));
        pending.clear();
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing is the end of the door whatever happens
        }
        closeQuietly(listener);
    }

    private static void closeQuietly(java.nio.channels.Channel c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (IOException ignored) {
            // nothing more to do with it
        }
    }

    /** An address as `HOST:PORT` (`[HOST]:PORT` for IPv6). */
    static String format(InetSocketAddress a) {
        String host = a.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /** A fresh connection whose hello is still arriving. */
    private static final class Knock {
        final SocketChannel channel;
        final SelectionKey key;
        final String from;
        final long deadline = System.nanoTime() + HELLO_WAIT_MS * 1_000_000L;
        private final ByteBuffer header = ByteBuffer.allocate(Wire.HEADER);
        private ByteBuffer payload; // once the header is in and checked

        Knock(SocketChannel channel, SelectionKey key) {
            this.channel = channel;
            this.key = key;
            this.from = remote(channel);
        }

        /**
         * Reads what has arrived: the hello once it is whole and carries `token`, null while
         * it is still coming; throws the failure to refuse the connection with (a header is
         * checked as soon as it is in).
         */
        Hello hear(String token) throws Failure {
            try {
                while (true) {
                    if (payload == null && !header.hasRemaining()) {
                        payload = ByteBuffer.allocate(helloLength());
                    }
                    ByteBuffer into = payload == null ? header : payload;
                    if (!into.hasRemaining()) {
                        Hello hello = Hello.parse(payload.array(), from);
                        hello.checkToken(token, from);
                        return hello;
                    }
                    int n = channel.read(into);
                    if (n < 0) {
                        throw Wire.peerFailure(from, "closed the connection before its hello");
                    }
                    if (n == 0) {
                        return null;
                    }
                }
            } catch (IOException e) {
                throw Wire.peerFailure(from, String.valueOf(e.getMessage()));
            }
        }

        private int helloLength() throws Failure {
            Wire.Header h = Wire.parseHeader(header, Wire.MAX_FRAME, from);
            if (h.kind() != FrameKind.HELLO) {
                throw Wire.peerFailure(from, "not a serbench peer (its first frame is no hello)");
            }
            if (h.length() > Wire.MAX_HELLO) {
                throw Wire.peerFailure(from, "a hello frame of " + h.length()
                    + " bytes exceeds its maximum " + Wire.MAX_HELLO);
            }
            return h.length();
        }

        /** The admitted connection as a link (the caller sets its timeout). */
        Link admitted() throws Failure {
            key.cancel();
            Link link = new Link(from, channel, HELLO_WAIT_MS);
            link.bytesReceived = Wire.HEADER + payload.capacity();
            return link;
        }

        /**
         * Sends the stranger an error frame naming its address (best effort: a link that
         * waits for nothing), logs one line and closes the connection.
         */
        void refuse(Failure refusal) {
            System.err.println("serbench-java listen: refused a connection: "
                + refusal.getMessage());
            key.cancel();
            try (Link link = new Link(from, channel, 0)) {
                link.sendError(refusal);
            } catch (Failure f) {
                closeQuietly(channel);
            }
        }

        private static String remote(SocketChannel c) {
            try {
                return format((InetSocketAddress) c.getRemoteAddress());
            } catch (IOException | RuntimeException e) {
                return "an unknown address";
            }
        }
    }
}
