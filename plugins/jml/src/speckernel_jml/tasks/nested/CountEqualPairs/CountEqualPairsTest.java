public class CountEqualPairsTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("CountEqualPairs: " + what);
        }
    }

    public static void main(String[] a) {
        check(CountEqualPairs.countEqualPairs(new int[] {1, 2}, new int[] {2, 2, 3}) == 2, "1,2");
        check(CountEqualPairs.countEqualPairs(new int[] {1, 1}, new int[] {1, 1}) == 4, "all");
        check(CountEqualPairs.countEqualPairs(new int[] {}, new int[] {5}) == 0, "empty a");
        check(CountEqualPairs.countEqualPairs(new int[] {4}, new int[] {}) == 0, "empty b");
    }
}
