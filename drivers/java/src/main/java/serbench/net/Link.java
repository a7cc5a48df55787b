package serbench.net;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import serbench.Failure;
import serbench.IoTimer;
import serbench.tasks.Json;

/**
 * One TCP connection to a named peer, counting the bytes it moves and timing every socket
 * call as io (a node blocked on its peers is not computing). The channel is non-blocking
 * behind a selector of its own: a blocking channel honours no timeout, and a peer silent
 * for the peer timeout must count as dead, when reading and when writing.
 */
public final class Link implements AutoCloseable {
    public String peer;
    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private long timeoutNs;
    /** The largest frame payload it sends or accepts. */
    private int maxFrame = Wire.MAX_FRAME;
    private final ByteBuffer header = ByteBuffer.allocate(Wire.HEADER);
    public long bytesSent;
    public long bytesReceived;

    public Link(String peer, SocketChannel channel, long timeoutMs) throws Failure {
        this.peer = peer;
        this.channel = channel;
        this.timeoutNs = timeoutMs * 1_000_000L;
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            selector = Selector.open();
            key = channel.register(selector, 0);
        } catch (IOException e) {
            throw Wire.peerFailure(peer, e.toString());
        }
    }

    /** Sends one frame whose payload is the concatenation of `parts` (their remaining bytes). */
    public void send(FrameKind kind, IoTimer timer, ByteBuffer... parts) throws Failure {
        long len = 0;
        for (ByteBuffer p : parts) {
            len += p.remaining();
        }
        if (len > maxFrame) {
            throw Failure.internal("a " + len + "-byte frame to " + peer
                + " exceeds the maximum " + maxFrame);
        }
        ByteBuffer[] all = new ByteBuffer[parts.length + 1];
        all[0] = Wire.header(kind, (int) len);
        System.arraycopy(parts, 0, all, 1, parts.length);
        long t0 = System.nanoTime();
        try {
            writeAll(all, Wire.HEADER + len);
        } finally {
            timer.since(t0);
        }
        bytesSent += Wire.HEADER + len;
    }

    public void sendJson(FrameKind kind, JsonNode value, IoTimer timer) throws Failure {
        send(kind, timer, ByteBuffer.wrap(Wire.json(value)));
    }

    /** The largest frame payload it sends or accepts ({@link Wire#MAX_FRAME} until set). */
    public int maxFrame() {
        return maxFrame;
    }

    /** A data link's maximum, the cell's `net_frame_bytes`, set once its hello is through. */
    public void setMaxFrame(int max) {
        maxFrame = max;
    }

    /** How long a read or write may block from now on. */
    public void setTimeout(long timeoutMs) {
        timeoutNs = timeoutMs * 1_000_000L;
    }

    /** Receives one frame into `payload`; an error frame from the peer becomes its failure. */
    public FrameKind recv(Payload payload, IoTimer timer) throws Failure {
        return recv(payload, timer, maxFrame);
    }

    /** As `recv`, refusing a declared length above `max` before the payload is read. */
    FrameKind recv(Payload payload, IoTimer timer, int max) throws Failure {
        long t0 = System.nanoTime();
        Wire.Header h;
        try {
            header.clear();
            readFully(header);
            h = Wire.parseHeader(header, maxFrame, peer);
            if (h.length() > max) {
                throw Wire.peerFailure(peer, "a " + h.kind().name().toLowerCase(
                    java.util.Locale.ROOT) + " frame of " + h.length()
                    + " bytes exceeds its maximum " + max);
            }
            readFully(payload.fill(h.length()));
        } finally {
            timer.since(t0);
        }
        bytesReceived += Wire.HEADER + h.length();
        if (h.kind() == FrameKind.ERROR) {
            throw reported(payload.copy());
        }
        return h.kind();
    }

    /** Receives one frame that must be `want` and carry a JSON object. */
    public ObjectNode recvJson(FrameKind want, IoTimer timer) throws Failure {
        Payload payload = new Payload(false);
        FrameKind kind = recv(payload, timer);
        if (kind != want) {
            throw Wire.peerFailure(peer, "expected a " + want + " frame, got " + kind);
        }
        return Wire.jsonObject(payload.copy(), peer);
    }

    /** Tells the peer why this node stops; best effort (the peer may be gone already). */
    public void sendError(Failure failure) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.put("kind", failure.kind);
        body.put("message", failure.getMessage());
        try {
            sendJson(FrameKind.ERROR, body, new IoTimer());
        } catch (Failure | RuntimeException ignored) {
            // the peer may have died already: the failure itself is what gets reported
        }
    }

    private Failure reported(byte[] payload) {
        JsonNode body;
        try {
            body = Json.MAPPER.readTree(payload);
        } catch (IOException e) {
            body = null;
        }
        String kind = body == null ? "" : body.path("kind").asText("");
        String message = body == null ? "" : body.path("message").asText("");
        return Wire.peerFailure(peer, "failed: " + kind + ": " + message);
    }

    /** Fills `b`; a closed connection, an error or silence for the peer timeout fail. */
    private void readFully(ByteBuffer b) throws Failure {
        try {
            while (b.hasRemaining()) {
                int n = channel.read(b);
                if (n < 0) {
                    throw Wire.peerFailure(peer, "closed the connection mid-stream (died?)");
                }
                if (n == 0 && !await(SelectionKey.OP_READ)) {
                    throw Wire.peerFailure(peer,
                        "sent nothing within the peer timeout (hung or dead?)");
                }
            }
        } catch (IOException e) {
            throw Wire.peerFailure(peer, e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    private void writeAll(ByteBuffer[] parts, long total) throws Failure {
        long left = total;
        try {
            while (left > 0) {
                long n = channel.write(parts);
                left -= n;
                if (n == 0 && !await(SelectionKey.OP_WRITE)) {
                    throw Wire.peerFailure(peer,
                        "took nothing within the peer timeout (hung or dead?)");
                }
            }
        } catch (IOException e) {
            throw Wire.peerFailure(peer, "sending a frame: "
                + (e.getMessage() == null ? e.toString() : e.getMessage()));
        }
    }

    /** Waits until the channel is ready for `op`; false after the peer timeout. */
    private boolean await(int op) throws IOException {
        key.interestOps(op);
        long deadline = System.nanoTime() + timeoutNs;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                if (selector.select(Math.max(1, left / 1_000_000L)) > 0) {
                    selector.selectedKeys().clear();
                    return true;
                }
            }
        } finally {
            key.interestOps(0);
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
            channel.close();
        } catch (IOException ignored) {
            // closing is the end of the link whatever happens
        }
    }
}
