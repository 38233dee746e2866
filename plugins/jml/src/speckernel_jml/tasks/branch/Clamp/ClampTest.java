public class ClampTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("Clamp: " + what);
        }
    }

    public static void main(String[] a) {
        check(Clamp.clamp(5, 0, 10) == 5, "inside");
        check(Clamp.clamp(-3, 0, 10) == 0, "below");
        check(Clamp.clamp(42, 0, 10) == 10, "above");
        check(Clamp.clamp(10, 0, 10) == 10, "upper edge");
        check(Clamp.clamp(7, 7, 7) == 7, "point range");
    }
}
