public class MinIndexTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("MinIndex: " + what);
        }
    }

    public static void main(String[] a) {
        check(MinIndex.minIndex(new int[] {4, 2, 8, 2}) == 1, "first minimum");
        check(MinIndex.minIndex(new int[] {5}) == 0, "single");
        check(MinIndex.minIndex(new int[] {3, 6, -1}) == 2, "last");
        check(MinIndex.minIndex(new int[] {0, 0, 0}) == 0, "all equal");
    }
}
