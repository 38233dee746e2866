public class ArraySumTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("ArraySum: " + what);
        }
    }

    public static void main(String[] a) {
        check(ArraySum.sum(new int[] {}) == 0, "empty");
        check(ArraySum.sum(new int[] {1, 2, 3}) == 6, "1,2,3");
        check(ArraySum.sum(new int[] {5, -7, 2}) == 0, "5,-7,2");
        check(ArraySum.sum(new int[] {100000, 100000}) == 200000, "large");
    }
}
