package serbench.net;

import com.fasterxml.jackson.databind.node.ObjectNode;
import serbench.Failure;
import serbench.IoTimer;
import serbench.tasks.Checksum;
import serbench.tasks.Json;

/** One node's part in a network task, built from its setup (loading its data is untimed). */
public interface Role {
    /** Checks the links the harness wired against what the role needs. */
    void checkLinks(Links links) throws Failure;

    /**
     * One repetition, started by `go`; socket and file calls are timed into `timer` (a role
     * working on several threads adds their mean io).
     */
    Outcome repetition(Links links, IoTimer timer) throws Exception;

    /** What one repetition produced besides the times and bytes the node measures. */
    final class Outcome {
        public final long objects;
        /** The set checksum of what this node decoded, or null. */
        public final Checksum checksum;
        /** The task's own report keys. */
        public final ObjectNode extra = Json.MAPPER.createObjectNode();

        public Outcome(long objects, Checksum checksum) {
            this.objects = objects;
            this.checksum = checksum;
        }
    }
}
