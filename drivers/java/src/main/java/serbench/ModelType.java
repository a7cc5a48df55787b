package serbench;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Function;
import serbench.model.Models;
import serbench.wire.WireIn;
import serbench.wire.WireOut;

/** One model id and the generated code of its root struct, so tasks and methods stay generic. */
public final class ModelType<T> {
    public interface JsonWrite<T> {
        void write(T value, JsonGenerator g) throws IOException;
    }

    public interface JsonRead<T> {
        T read(JsonParser p) throws IOException;
    }

    public interface ExtWrite<T> {
        void write(T value, DataOutput o) throws IOException;
    }

    public interface ExtRead<T> {
        T read(DataInput i) throws IOException;
    }

    public final String id;
    public final Class<T> type;
    private final BiConsumer<T, Hasher> fold;
    private final BiPredicate<T, T> same;
    private final JsonWrite<T> writeJson;
    private final JsonRead<T> readJson;
    private final BiConsumer<T, WireOut> put;
    private final Function<WireIn, T> take;
    private final BiConsumer<WireIn, Hasher> visit;
    private final ExtWrite<T> writeExt;
    private final ExtRead<T> readExt;
    private final Function<T, String> missing;

    @SuppressWarnings("checkstyle:ParameterNumber")
    public ModelType(String id, Class<T> type, BiConsumer<T, Hasher> fold, BiPredicate<T, T> same,
            JsonWrite<T> writeJson, JsonRead<T> readJson, BiConsumer<T, WireOut> put,
            Function<WireIn, T> take, BiConsumer<WireIn, Hasher> visit, ExtWrite<T> writeExt,
            ExtRead<T> readExt, Function<T, String> missing) {
        this.id = id;
        this.type = type;
        this.fold = fold;
        this.same = same;
        this.writeJson = writeJson;
        this.readJson = readJson;
        this.put = put;
        this.take = take;
        this.visit = visit;
        this.writeExt = writeExt;
        this.readExt = readExt;
        this.missing = missing;
    }

    public void fold(T value, Hasher h) {
        fold.accept(value, h);
    }

    /** The object hash of a native value. */
    public long hash(T value) {
        Hasher h = new Hasher();
        fold.accept(value, h);
        return h.finish();
    }

    public boolean same(T a, T b) {
        return same.test(a, b);
    }

    public void writeJson(T value, JsonGenerator g) throws IOException {
        writeJson.write(value, g);
    }

    public T readJson(JsonParser p) throws IOException {
        return readJson.read(p);
    }

    public void put(T value, WireOut w) {
        put.accept(value, w);
    }

    public T take(WireIn r) {
        return take.apply(r);
    }

    public void visit(WireIn r, Hasher h) {
        visit.accept(r, h);
    }

    public void writeExt(T value, DataOutput o) throws IOException {
        writeExt.write(value, o);
    }

    public T readExt(DataInput i) throws IOException {
        return readExt.read(i);
    }

    /**
     * The path of the first required field a decoded value lacks (`user.screen_name`), or
     * null: for readers that fill fields by name and may leave one unset.
     */
    public String missing(T value) {
        return missing.apply(value);
    }

    public static ModelType<?> byId(String id) {
        for (ModelType<?> m : Models.ALL) {
            if (m.id.equals(id)) {
                return m;
            }
        }
        return null;
    }
}
