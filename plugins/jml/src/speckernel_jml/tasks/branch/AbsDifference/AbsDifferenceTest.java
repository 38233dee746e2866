public class AbsDifferenceTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("AbsDifference: " + what);
        }
    }

    public static void main(String[] a) {
        check(AbsDifference.absDifference(3, 10) == 7, "3,10");
        check(AbsDifference.absDifference(10, 3) == 7, "10,3");
        check(AbsDifference.absDifference(-5, 5) == 10, "-5,5");
        check(AbsDifference.absDifference(4, 4) == 0, "equal");
        check(AbsDifference.absDifference(-1000000000, 1000000000) == 2000000000, "extremes");
    }
}
