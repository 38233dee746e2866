public class MidPointTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("MidPoint: " + what);
        }
    }

    public static void main(String[] a) {
        check(MidPoint.midPoint(0, 10) == 5, "0..10");
        check(MidPoint.midPoint(3, 4) == 3, "3..4");
        check(MidPoint.midPoint(7, 7) == 7, "7..7");
        check(MidPoint.midPoint(1, 8) == 4, "1..8");
        check(MidPoint.midPoint(2000000000, 2147483647) == 2073741823, "large");
    }
}
