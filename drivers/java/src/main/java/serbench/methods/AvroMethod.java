package serbench.methods;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.util.ClassSecurityValidator;
import serbench.Bytes;
import serbench.Depth;
import serbench.Hasher;
import serbench.ModelType;
import serbench.methods.convert.AvroConvert;
import serbench.methods.schema.AvroRoot;
import serbench.wire.DecodeException;

/**
 * `avro` (Java only): Avro 1.12 binary encoding of the specific records the avro-maven-plugin
 * generates written from the model definitions at build time. Specific records rather than GenericRecord:
 * field access is a compiled getter instead of a schema lookup and a cast, and the reader
 * builds those classes directly. One stored object is one datum with no framing (no
 * container file, no single-object header: the index gives its extent and the schema is
 * fixed per model). One BinaryEncoder and one BinaryDecoder are reused, and the reader decodes
 * into the previous object's record tree (datum reuse): `access` folds that record,
 * `materialize` converts it to the model classes.
 */
public final class AvroMethod<T, R extends SpecificRecord> implements Codec<T> {
    public static final MethodSpec SPEC = new MethodSpec("avro",
        List.of(Depth.MATERIALIZE, Depth.ACCESS),
        List.of(MethodSpec.SRC + "AvroMethod.java", MethodSpec.SRC + "schema/AvroRoot.java",
            MethodSpec.CONVERT + "AvroConvert.java"),
        true, false, Map.of(), AvroMethod::of);

    private final ModelType<T> model;
    private final AvroRoot<T, R> root;
    private final SpecificDatumWriter<R> writer;
    private final SpecificDatumReader<R> reader;
    private final Streams.Out stream = new Streams.Out();
    private BinaryEncoder encoder;
    private BinaryDecoder decoder;
    private final StrictUtf8Decoder strict = new StrictUtf8Decoder();
    private R reused;

    static {
        // avro 1.12 instantiates only trusted classes: ours, besides its own defaults
        ClassSecurityValidator.Builder ours = ClassSecurityValidator.builder();
        AvroConvert.CLASSES.forEach(ours::add);
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(
            ClassSecurityValidator.getGlobal(), ours.build()));
    }

    private AvroMethod(ModelType<T> model, AvroRoot<T, R> root) {
        this.model = model;
        this.root = root;
        this.writer = new SpecificDatumWriter<>(root.record());
        this.reader = new SpecificDatumReader<>(root.record());
    }

    @SuppressWarnings("unchecked")
    static <T> Codec<T> of(ModelType<T> model) {
        return new AvroMethod<>(model, (AvroRoot<T, SpecificRecord>) AvroConvert.root(model.id));
    }

    @Override
    public void encode(T value, Bytes out) throws IOException {
        encoder = EncoderFactory.get().binaryEncoder(stream.on(out), encoder);
        writer.write(root.put().apply(value), encoder);
        encoder.flush();
    }

    /** Decodes into the reused record tree; the bytes must hold exactly one datum. */
    private R read(ByteBuffer page, int off, int len) {
        decoder = DecoderFactory.get().binaryDecoder(page.array(), page.arrayOffset() + off, len,
            decoder);
        boolean end;
        try {
            reused = reader.read(reused, strict.on(decoder));
            end = decoder.isEnd();
        } catch (IOException | RuntimeException e) {
            // avro reports damage as EOF, AvroRuntimeException, its size limits'
            // UnsupportedOperationException, index errors ...; all are this datum's fault
            reused = null; // a half-decoded tree is not reused
            throw new DecodeException(-1, "not a valid avro " + root.record().getSimpleName()
                + " datum (" + len + " bytes): " + e);
        }
        if (!end) {
            throw new DecodeException(-1, "trailing bytes after the avro "
                + root.record().getSimpleName() + " datum (" + len + " bytes)");
        }
        return reused;
    }

    @Override
    public T decode(ByteBuffer page, int off, int len) {
        return root.take().apply(read(page, off, len));
    }

    @Override
    public void fold(ByteBuffer page, int off, int len, Depth depth, Hasher h) {
        R r = read(page, off, len);
        if (depth == Depth.ACCESS) {
            root.visit().accept(r, h);
        } else {
            model.fold(root.take().apply(r), h);
        }
    }
}
