package serbench;

/** How deep a read goes; NONE is the protocol's "" (writes, and the raw floor). */
public enum Depth {
    NONE(""), MATERIALIZE("materialize"), ACCESS("access"), KEY("key");

    public final String id;

    Depth(String id) {
        this.id = id;
    }

    public static Depth parse(String id) throws Failure {
        for (Depth d : values()) {
            if (d.id.equals(id)) {
                return d;
            }
        }
        throw Failure.badRequest("unknown depth '" + id + "'; known depths: materialize, access, key");
    }
}
