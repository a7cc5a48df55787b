package serbench.methods;

import com.thoughtworks.xstream.XStream;
import com.thoughtworks.xstream.XStreamException;
import com.thoughtworks.xstream.io.HierarchicalStreamReader;
import com.thoughtworks.xstream.io.ReaderWrapper;
import com.thoughtworks.xstream.io.xml.CompactWriter;
import com.thoughtworks.xstream.io.xml.XppDriver;
import com.thoughtworks.xstream.security.ForbiddenClassException;
import com.thoughtworks.xstream.security.NoTypePermission;
import com.thoughtworks.xstream.security.NullPermission;
import com.thoughtworks.xstream.security.PrimitiveTypePermission;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import serbench.Bytes;
import serbench.Depth;
import serbench.ModelType;
import serbench.model.Models;
import serbench.wire.DecodeException;

/**
 * `xml`: XStream's reflection mapping of the model classes as compact UTF-8 XML. XStream
 * resolves element names to classes, so reading is limited to an allow-list (the model
 * classes, their arrays, strings, primitives and their boxes); any other class is refused.
 * XStream writes an object reached twice as a reference to its first element, and reads one
 * by following it: level after level, a document of a few hundred bytes then reads as a tree
 * of 2^levels objects. Serbench's objects are trees, so the writer runs without references
 * (NO_REFERENCES) and the reader refuses a document with a reference or id attribute: every
 * object read is then an element of the document. XStream recurses per element with no bound
 * of its own below its stack's, so the reader bounds the nesting at PROTOCOL.md 2.1's 64
 * levels; and it fills fields by element name, so a required field whose element is absent is
 * refused by name (`model.missing`), not left null for the checksum to trip over.
 */
public final class Xml<T> extends Materialized<T> {
    public static final MethodSpec SPEC = MethodSpec.of("xml", List.of(Depth.MATERIALIZE),
        "Xml.java", Xml::new);

    private final XppDriver driver = new XppDriver();
    private final XStream xstream = new XStream(driver);
    private final Streams.Out out = new Streams.Out();
    private final Streams.In in = new Streams.In();

    Xml(ModelType<T> model) {
        super(model);
        xstream.setMode(XStream.NO_REFERENCES);
        xstream.addPermission(NoTypePermission.NONE);
        xstream.addPermission(NullPermission.NULL);
        xstream.addPermission(PrimitiveTypePermission.PRIMITIVES);
        xstream.allowTypes(Models.CLASSES.toArray(new Class<?>[0]));
        xstream.allowTypes(new Class<?>[] {String.class, byte[].class, short[].class,
            int[].class, long[].class, double[].class, boolean[].class});
    }

    @Override
    public void encode(T value, Bytes bytes) throws Exception {
        Writer w = new OutputStreamWriter(out.on(bytes), StandardCharsets.UTF_8);
        xstream.marshal(value, new CompactWriter(w));
        w.flush();
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) throws Exception {
        // the parser stops at the root's end tag; nothing may follow it
        if (len == 0 || page.array()[off + len - 1] != '>') {
            throw new DecodeException(len, "the document does not end with its root's end tag");
        }
        // a decoder of its own reports bytes that are not UTF-8 (the charset's replaces them)
        TreeOnly reader = new TreeOnly(driver.createReader(new InputStreamReader(
            in.on(page, off, len), StandardCharsets.UTF_8.newDecoder())));
        T v = checked(unmarshal(reader));
        // at the last element depth allowed, an empty element may be a list one level too deep
        if (reader.deepest > Nesting.MAX && Nesting.of(v) > Nesting.MAX) {
            throw new DecodeException(-1, Nesting.TOO_DEEP);
        }
        String absent = model.missing(v);
        if (absent != null) {
            throw new DecodeException(-1, "required field " + absent + " is missing (the "
                + "document has no element for it)");
        }
        return v;
    }

    private Object unmarshal(TreeOnly reader) {
        try {
            return xstream.unmarshal(reader);
        } catch (ForbiddenClassException e) {
            throw new DecodeException(-1, "refused by the allow-list: " + e.getMessage());
        } catch (XStreamException e) {
            // XStream wraps what TreeOnly refused in its debugging report: say only that
            throw e.getCause() instanceof DecodeException refused ? refused : e;
        }
    }

    private T checked(Object v) {
        if (!model.type.isInstance(v)) {
            throw new DecodeException(-1, "the document holds "
                + (v == null ? "null" : v.getClass().getName()) + ", not " + model.type.getName());
        }
        return model.type.cast(v);
    }

    /**
     * A reader that refuses XStream's reference attributes, which the writer never writes,
     * and elements nested deeper than the model's 64 levels allow: every ancestor of an
     * element holds children, so it is an object or a list, one level each.
     */
    private static final class TreeOnly extends ReaderWrapper {
        private int depth = 1;
        /** The deepest element seen: the root is 1. */
        int deepest = 1;

        TreeOnly(HierarchicalStreamReader reader) {
            super(reader);
            refuseReferences();
        }

        @Override
        public void moveDown() {
            super.moveDown();
            if (++depth - 1 > Nesting.MAX) {
                throw new DecodeException(-1, Nesting.TOO_DEEP);
            }
            deepest = Math.max(deepest, depth);
            refuseReferences();
        }

        @Override
        public void moveUp() {
            super.moveUp();
            depth--;
        }

        private void refuseReferences() {
            for (String attribute : new String[] {"reference", "id"}) {
                String value = getAttribute(attribute);
                if (value != null) {
                    throw new DecodeException(-1, "element <" + getNodeName() + "> has "
                        + attribute + "=\"" + value + "\": a reference to another element, "
                        + "which serbench's writer never writes (its objects are trees)");
                }
            }
        }
    }
}
