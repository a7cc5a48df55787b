package serbench.methods.schema;

import com.google.flatbuffers.FlatBufferBuilder;
import java.nio.ByteBuffer;
import serbench.Hasher;

/** The flatbuffers binding of one model: its root table and the converters of FlatConvert. */
public record FlatRoot<T, R>(Class<T> type, Root<R> root, Put<T> put, Take<T, R> take,
        Visit<R> visit) {

    public interface Root<R> {
        R of(ByteBuffer buffer);
    }

    public interface Put<T> {
        int put(FlatBufferBuilder b, T value);
    }

    public interface Take<T, R> {
        T take(R table, FlatIn c);
    }

    public interface Visit<R> {
        void visit(R table, Hasher h, FlatIn c);
    }
}
