package serbench.methods.schema;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.util.function.BiConsumer;
import java.util.function.Function;
import serbench.Hasher;

/**
 * The protobuf binding of one model: its root message's parser, the converters of
 * ProtoConvert, and the bytes that store an all-default message (PROTOCOL.md section 9).
 */
public record ProtoRoot<T, M extends MessageLite>(Class<T> type, Parser<M> parser,
        Function<T, M> put, Function<M, T> take, BiConsumer<M, Hasher> visit, byte[] empty) {}
