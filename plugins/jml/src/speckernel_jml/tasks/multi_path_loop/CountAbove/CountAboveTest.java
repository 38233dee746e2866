public class CountAboveTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("CountAbove: " + what);
        }
    }

    public static void main(String[] a) {
        check(CountAbove.countAbove(new int[] {1, 5, 3, 8}, 3) == 2, "mixed");
        check(CountAbove.countAbove(new int[] {1, 2, 3}, 9) == 0, "none");
        check(CountAbove.countAbove(new int[] {}, 0) == 0, "empty");
        check(CountAbove.countAbove(new int[] {-1, -1}, -2) == 2, "all");
    }
}
