package serbench.methods;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;
import serbench.wire.DecodeException;

/**
 * Avro's binary decoder with strict strings: avro decodes a string's bytes with replacement
 * characters, so bytes that are not UTF-8 would read as other text. Every string is checked
 * (ASCII costs one pass over its bytes) before it becomes text; everything else is passed on.
 */
final class StrictUtf8Decoder extends Decoder {
    private BinaryDecoder in;
    private Utf8 scratch = new Utf8();

    StrictUtf8Decoder on(BinaryDecoder decoder) {
        in = decoder;
        return this;
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        Utf8 s = in.readString(old);
        int bad = serbench.wire.Utf8.invalidAt(s.getBytes(), 0, s.getByteLength());
        if (bad >= 0) {
            throw new DecodeException(-1, "a string that is not UTF-8 (byte " + bad
                + " of its " + s.getByteLength() + ")");
        }
        return s;
    }

    @Override
    public String readString() throws IOException {
        scratch = readString(scratch);
        return new String(scratch.getBytes(), 0, scratch.getByteLength(), StandardCharsets.UTF_8);
    }

    @Override
    public void readNull() throws IOException {
        in.readNull();
    }

    @Override
    public boolean readBoolean() throws IOException {
        return in.readBoolean();
    }

    @Override
    public int readInt() throws IOException {
        return in.readInt();
    }

    @Override
    public long readLong() throws IOException {
        return in.readLong();
    }

    @Override
    public float readFloat() throws IOException {
        return in.readFloat();
    }

    @Override
    public double readDouble() throws IOException {
        return in.readDouble();
    }

    @Override
    public void skipString() throws IOException {
        in.skipString();
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        return in.readBytes(old);
    }

    @Override
    public void skipBytes() throws IOException {
        in.skipBytes();
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        in.readFixed(bytes, start, length);
    }

    @Override
    public void skipFixed(int length) throws IOException {
        in.skipFixed(length);
    }

    @Override
    public int readEnum() throws IOException {
        return in.readEnum();
    }

    @Override
    public long readArrayStart() throws IOException {
        return in.readArrayStart();
    }

    @Override
    public long arrayNext() throws IOException {
        return in.arrayNext();
    }

    @Override
    public long skipArray() throws IOException {
        return in.skipArray();
    }

    @Override
    public long readMapStart() throws IOException {
        return in.readMapStart();
    }

    @Override
    public long mapNext() throws IOException {
        return in.mapNext();
    }

    @Override
    public long skipMap() throws IOException {
        return in.skipMap();
    }

    @Override
    public int readIndex() throws IOException {
        return in.readIndex();
    }
}
