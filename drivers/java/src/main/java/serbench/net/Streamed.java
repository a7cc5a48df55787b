package serbench.net;

import com.fasterxml.jackson.databind.node.ObjectNode;
import serbench.Failure;
import serbench.tasks.Json;

/** The counts of one stream, as its end frame reports them (PROTOCOL.md 10.3). */
public final class Streamed {
    public long objects;
    /** Storage page bytes (entries and frame headers not counted). */
    public long bytes;
    public long frames;

    void add(long objects, long bytes) {
        this.objects += objects;
        this.bytes += bytes;
        frames++;
    }

    /** The end frame's body. */
    public ObjectNode summary(int pageSize) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("objects", objects);
        n.put("bytes", bytes);
        n.put("frames", frames);
        n.put("page_size", pageSize);
        return n;
    }

    /** Sends the end frame closing this stream. */
    public void end(Link link, int pageSize, serbench.IoTimer timer) throws Failure {
        link.sendJson(FrameKind.END, summary(pageSize), timer);
    }

    /** Compares an end frame's claims with what arrived; a difference names the peer. */
    public void checkEnd(ObjectNode end, int pageSize, String peer) throws Failure {
        ObjectNode arrived = summary(pageSize);
        for (String key : new String[] {"objects", "bytes", "frames", "page_size"}) {
            if (!end.path(key).isIntegralNumber()
                    || end.get(key).asLong() != arrived.get(key).asLong()) {
                throw Wire.peerFailure(peer, "the stream ended claiming " + key + " "
                    + end.get(key) + ", " + arrived.get(key) + " arrived");
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Streamed s && s.objects == objects && s.bytes == bytes
            && s.frames == frames;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(objects * 31 + bytes * 17 + frames);
    }

    @Override
    public String toString() {
        return objects + " objects, " + bytes + " bytes, " + frames + " frames";
    }
}
