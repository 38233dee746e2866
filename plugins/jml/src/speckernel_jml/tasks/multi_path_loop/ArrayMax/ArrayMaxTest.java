public class ArrayMaxTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("ArrayMax: " + what);
        }
    }

    public static void main(String[] a) {
        check(ArrayMax.max(new int[] {3, 9, 2}) == 9, "3,9,2");
        check(ArrayMax.max(new int[] {-4}) == -4, "single");
        check(ArrayMax.max(new int[] {-8, -3, -5}) == -3, "negatives");
        check(ArrayMax.max(new int[] {1, 2, 7}) == 7, "last");
    }
}
