package serbench.methods.schema;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.core.buffer.ArrayBufferInput;
import serbench.wire.DecodeException;
import serbench.wire.Utf8;

/**
 * The strict reads of one `msgpack_arrays` object (PROTOCOL.md 8.2.1) that the generated
 * MsgpackArraysConvert calls: a struct is an array of exactly its field count, integers
 * of any width whose value fits (msgpack-core checks the range), float 64 only, str checked as
 * UTF-8 and never longer than the bytes left, a tweet nested at most 64 statuses deep, and
 * nothing after the object. One unpacker is reused from object to object.
 */
public final class MsgpackIn {
    /** Writes a model's root struct. */
    public interface Put<T> {
        void put(T value, MessagePacker p) throws IOException;
    }

    /** Reads a model's root struct. */
    public interface Take<T> {
        T take(MsgpackIn in) throws IOException;
    }

    /** The generated writer and reader of one model. */
    public record Root<T>(Put<T> put, Take<T> take) {}

    private static final int MAX_NESTING = 64;
    private static final MessagePack.UnpackerConfig CONFIG = new MessagePack.UnpackerConfig()
        .withAllowReadingBinaryAsString(false);

    private final ArrayBufferInput input = new ArrayBufferInput(new byte[0]);
    private final MessageUnpacker u = CONFIG.newUnpacker(input);
    private byte[] array;
    private int off;
    private int len;
    private int nesting;

    /** The one object in a[off, off + len). */
    public <T> T read(Take<T> take, byte[] a, int off, int len) throws IOException {
        input.reset(a, off, len);
        u.reset(input);
        this.array = a;
        this.off = off;
        this.len = len;
        nesting = 0;
        T value;
        try {
            value = take.take(this);
        } catch (MessageInsufficientBufferException e) {
            throw new DecodeException(len, "the object ends inside a value");
        }
        if (u.hasNext()) {
            throw new DecodeException(at(), (len - at()) + " trailing bytes after the msgpack "
                + "array");
        }
        return value;
    }

    private int at() {
        return (int) u.getTotalReadBytes();
    }

    /** The header of a struct's array, which must hold exactly its `count` fields. */
    public void fields(int count, String struct) throws IOException {
        MessageFormat f = u.getNextFormat();
        if (f.getValueType() != org.msgpack.value.ValueType.ARRAY) {
            throw new DecodeException(at(), "expected " + struct + " array, got " + f);
        }
        int n = u.unpackArrayHeader();
        if (n != count) {
            throw new DecodeException(at(), "expected " + struct + " array of " + count
                + " fields, got " + Integer.toUnsignedString(n));
        }
    }

    /** True (and consumed) when the next value is nil: an absent optional. */
    public boolean nil() throws IOException {
        if (u.getNextFormat() == MessageFormat.NIL) {
            u.unpackNil();
            return true;
        }
        return false;
    }

    /** A list's element count; every element takes a byte, so more than the bytes left is corrupt. */
    public int count() throws IOException {
        int n = u.unpackArrayHeader();
        if (n < 0 || n > len - at()) {
            throw new DecodeException(at(), "array of " + Integer.toUnsignedString(n)
                + " elements exceeds the " + (len - at()) + " bytes left");
        }
        return n;
    }

    public byte i8() throws IOException {
        return u.unpackByte();
    }

    public short i16() throws IOException {
        return u.unpackShort();
    }

    public int i32() throws IOException {
        return u.unpackInt();
    }

    public long i64() throws IOException {
        return u.unpackLong();
    }

    public double f64() throws IOException {
        MessageFormat f = u.getNextFormat();
        if (f != MessageFormat.FLOAT64) {
            throw new DecodeException(at(), "expected float 64, got " + f);
        }
        return u.unpackDouble();
    }

    public boolean flag() throws IOException {
        return u.unpackBoolean();
    }

    /** A str, read in place from the page and checked as UTF-8. */
    public String str() throws IOException {
        int n = u.unpackRawStringHeader();
        int from = off + at();
        if (n < 0 || n > len - at()) {
            throw new DecodeException(at(), "str of " + Integer.toUnsignedString(n)
                + " bytes exceeds the " + (len - at()) + " bytes left");
        }
        int bad = Utf8.invalidAt(array, from, from + n);
        if (bad >= 0) {
            throw new DecodeException(bad - off, "a string that is not UTF-8");
        }
        u.readPayloadAsReference(n);
        return new String(array, from, n, StandardCharsets.UTF_8);
    }

    /** An enum's symbol as its ordinal in `names`. */
    public int symbol(String[] names) throws IOException {
        String s = str();
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(s)) {
                return i;
            }
        }
        throw new DecodeException(at(), "'" + s + "' is not a symbol of the enum");
    }

    /** One status deeper (a quoted or retweeted tweet). */
    public void enter() {
        if (++nesting > MAX_NESTING) {
            throw new DecodeException(at(), "nested deeper than " + MAX_NESTING + " levels");
        }
    }

    public void leave() {
        nesting--;
    }
}
