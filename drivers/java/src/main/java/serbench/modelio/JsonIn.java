package serbench.modelio;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;

/** Typed reads of canonical JSON values, with errors that name what was expected. */
public final class JsonIn {
    private JsonIn() {}

    /** Reads one value at the current token. */
    public interface Value<T> {
        T read() throws IOException;
    }

    public static void expect(JsonParser p, JsonToken token, String what) throws IOException {
        if (p.currentToken() != token) {
            throw error(p, what + ": expected " + token + ", found " + p.currentToken());
        }
    }

    public static JsonParseException unknown(String struct, String key) {
        return new JsonParseException(null, struct + ": unknown key '" + key + "'");
    }

    /** Marks a key as seen; a key given twice is an error. */
    public static long once(long seen, long bit, String struct, String key) throws JsonParseException {
        if ((seen & bit) != 0) {
            throw new JsonParseException(null, struct + ": repeated key '" + key + "'");
        }
        return seen | bit;
    }

    public static JsonParseException missing(String struct, long seen, long mask, String[] names) {
        StringBuilder absent = new StringBuilder();
        for (int k = 0; k < names.length; k++) {
            if ((mask & (1L << k)) != 0 && (seen & (1L << k)) == 0) {
                absent.append(absent.length() == 0 ? "" : ", ").append(names[k]);
            }
        }
        return new JsonParseException(null, struct + ": missing " + absent);
    }

    private static JsonParseException error(JsonParser p, String message) {
        return new JsonParseException(p, message);
    }

    private static long integer(JsonParser p, long min, long max, String type) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw error(p, "expected an integer (" + type + "), found " + p.currentToken());
        }
        long v = p.getLongValue();
        if (v < min || v > max) {
            throw error(p, v + " is out of range for " + type);
        }
        return v;
    }

    public static byte i8(JsonParser p) throws IOException {
        return (byte) integer(p, Byte.MIN_VALUE, Byte.MAX_VALUE, "i8");
    }

    public static short i16(JsonParser p) throws IOException {
        return (short) integer(p, Short.MIN_VALUE, Short.MAX_VALUE, "i16");
    }

    public static int i32(JsonParser p) throws IOException {
        return (int) integer(p, Integer.MIN_VALUE, Integer.MAX_VALUE, "i32");
    }

    public static long i64(JsonParser p) throws IOException {
        return integer(p, Long.MIN_VALUE, Long.MAX_VALUE, "i64");
    }

    public static double f64(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t != JsonToken.VALUE_NUMBER_FLOAT && t != JsonToken.VALUE_NUMBER_INT) {
            throw error(p, "expected a number (f64), found " + t);
        }
        return p.getDoubleValue();
    }

    public static boolean flag(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
            throw error(p, "expected true or false, found " + t);
        }
        return t == JsonToken.VALUE_TRUE;
    }

    public static String str(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw error(p, "expected a string, found " + p.currentToken());
        }
        return p.getText();
    }

    public static int symbol(JsonParser p, String[] names) throws IOException {
        String s = str(p);
        for (int k = 0; k < names.length; k++) {
            if (names[k].equals(s)) {
                return k;
            }
        }
        throw error(p, "'" + s + "' is not one of " + String.join(", ", names));
    }

    public static <T> ArrayList<T> list(JsonParser p, Value<T> element) throws IOException {
        expect(p, JsonToken.START_ARRAY, "list");
        ArrayList<T> out = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            out.add(element.read());
        }
        return out;
    }

    public static int[] i32List(JsonParser p) throws IOException {
        expect(p, JsonToken.START_ARRAY, "list");
        int[] out = new int[8];
        int n = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (n == out.length) {
                out = java.util.Arrays.copyOf(out, n * 2);
            }
            out[n++] = i32(p);
        }
        return java.util.Arrays.copyOf(out, n);
    }

    public static long[] i64List(JsonParser p) throws IOException {
        expect(p, JsonToken.START_ARRAY, "list");
        long[] out = new long[8];
        int n = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (n == out.length) {
                out = java.util.Arrays.copyOf(out, n * 2);
            }
            out[n++] = i64(p);
        }
        return java.util.Arrays.copyOf(out, n);
    }

    public static double[] f64List(JsonParser p) throws IOException {
        expect(p, JsonToken.START_ARRAY, "list");
        double[] out = new double[8];
        int n = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (n == out.length) {
                out = java.util.Arrays.copyOf(out, n * 2);
            }
            out[n++] = f64(p);
        }
        return java.util.Arrays.copyOf(out, n);
    }

    public static String[] strList(JsonParser p) throws IOException {
        return list(p, () -> str(p)).toArray(new String[0]);
    }
}
