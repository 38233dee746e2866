public class SignOfTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("SignOf: " + what);
        }
    }

    public static void main(String[] a) {
        check(SignOf.sign(-12) == -1, "negative");
        check(SignOf.sign(0) == 0, "zero");
        check(SignOf.sign(8) == 1, "positive");
        check(SignOf.sign(Integer.MIN_VALUE) == -1, "min");
    }
}
