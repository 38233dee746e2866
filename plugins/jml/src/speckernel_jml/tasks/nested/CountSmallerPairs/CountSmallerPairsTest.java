public class CountSmallerPairsTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("CountSmallerPairs: " + what);
        }
    }

    public static void main(String[] a) {
        check(CountSmallerPairs.countSmallerPairs(new int[] {1, 2}, new int[] {2, 2, 3}) == 4, "1,2");
        check(CountSmallerPairs.countSmallerPairs(new int[] {1, 1}, new int[] {1, 1}) == 0, "none");
        check(CountSmallerPairs.countSmallerPairs(new int[] {0}, new int[] {1, 1}) == 2, "all");
        check(CountSmallerPairs.countSmallerPairs(new int[] {}, new int[] {5}) == 0, "empty a");
        check(CountSmallerPairs.countSmallerPairs(new int[] {4}, new int[] {}) == 0, "empty b");
    }
}
