package serbench.modelio;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.NumberOutput;
import com.fasterxml.jackson.core.json.JsonGeneratorImpl;
import java.io.IOException;

/**
 * f64 as PROTOCOL.md section 8.1 writes it: the shortest round-tripping digits (Jackson's
 * Schubfach writer; JDK 17's Double.toString is not always shortest), positional when the
 * decimal exponent E of the first digit is in [-5, 16), else `d[.ddd]e±E`.
 */
public final class JsonOut {
    private JsonOut() {}

    /** Binary formats written through the same generated code take the double itself. */
    public static void f64(JsonGenerator g, double v) throws IOException {
        if (g instanceof JsonGeneratorImpl) {
            g.writeNumber(canonical(v));
        } else {
            g.writeNumber(v);
        }
    }

    public static String canonical(double v) {
        if (v == 0) {
            return Double.doubleToRawLongBits(v) < 0 ? "-0.0" : "0.0";
        }
        // Java's form: [-]int.frac[E[-]exp], exactly the shortest digits
        String s = NumberOutput.toString(v, true);
        boolean negative = s.charAt(0) == '-';
        int e = s.indexOf('E');
        String mantissa = s.substring(negative ? 1 : 0, e < 0 ? s.length() : e);
        int exp = e < 0 ? 0 : Integer.parseInt(s.substring(e + 1));
        int dot = mantissa.indexOf('.');
        StringBuilder digits = new StringBuilder(mantissa.length());
        digits.append(mantissa, 0, dot).append(mantissa, dot + 1, mantissa.length());
        int point = dot + exp; // the decimal point follows this many digits
        int lead = 0;
        while (lead < digits.length() - 1 && digits.charAt(lead) == '0') {
            lead++;
        }
        digits.delete(0, lead);
        point -= lead;
        int end = digits.length();
        while (end > 1 && digits.charAt(end - 1) == '0') {
            end--;
        }
        digits.setLength(end);
        if (digits.length() == 2) {
            point = oneDigit(Math.abs(v), digits, point);
        }
        return render(negative, digits, point);
    }

    /**
     * Java prints at least two digits (4.9E-324) where one may round-trip too (5e-324):
     * keeps the one-digit neighbour that reads back to `v`, the nearer one if both do.
     * Returns the new decimal point position.
     */
    private static int oneDigit(double v, StringBuilder digits, int point) {
        int d = digits.charAt(0) - '0';
        int second = digits.charAt(1) - '0';
        boolean down = Double.parseDouble(d + "e" + (point - 1)) == v;
        boolean up = Double.parseDouble((d + 1) + "e" + (point - 1)) == v;
        if (up && (!down || second >= 5)) {
            digits.setLength(0);
            if (d == 9) {
                digits.append('1');
                return point + 1;
            }
            digits.append((char) ('0' + d + 1));
        } else if (down) {
            digits.setLength(1);
        }
        return point;
    }

    private static String render(boolean negative, StringBuilder digits, int point) {
        StringBuilder b = new StringBuilder(digits.length() + 8);
        if (negative) {
            b.append('-');
        }
        int decimalExp = point - 1;
        int n = digits.length();
        if (decimalExp >= -5 && decimalExp < 16) {
            if (point <= 0) {
                b.append("0.").append("0".repeat(-point)).append(digits);
            } else if (point >= n) {
                b.append(digits).append("0".repeat(point - n)).append(".0");
            } else {
                b.append(digits, 0, point).append('.').append(digits, point, n);
            }
        } else {
            b.append(digits.charAt(0));
            if (n > 1) {
                b.append('.').append(digits, 1, n);
            }
            b.append('e').append(decimalExp < 0 ? '-' : '+').append(Math.abs(decimalExp));
        }
        return b.toString();
    }
}
