package serbench.methods.schema;

import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;
import serbench.Hasher;

/** The avro binding of one model: its root specific record and the converters of AvroConvert. */
public record AvroRoot<T, R extends SpecificRecord>(Class<T> type, Class<R> record,
        Function<T, R> put, Function<R, T> take, BiConsumer<R, Hasher> visit) {}
