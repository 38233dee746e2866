public class IsSortedTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("IsSorted: " + what);
        }
    }

    public static void main(String[] a) {
        check(IsSorted.isSorted(new int[] {1, 2, 2, 5}), "sorted");
        check(!IsSorted.isSorted(new int[] {3, 1}), "unsorted");
        check(IsSorted.isSorted(new int[] {}), "empty");
        check(IsSorted.isSorted(new int[] {4}), "single");
        check(!IsSorted.isSorted(new int[] {1, 2, 3, 0}), "last pair");
    }
}
