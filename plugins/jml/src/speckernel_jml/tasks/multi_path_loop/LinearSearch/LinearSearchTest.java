public class LinearSearchTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("LinearSearch: " + what);
        }
    }

    public static void main(String[] a) {
        check(LinearSearch.indexOf(new int[] {4, 7, 7, 1}, 7) == 1, "first of two");
        check(LinearSearch.indexOf(new int[] {4, 7, 1}, 5) == -1, "absent");
        check(LinearSearch.indexOf(new int[] {}, 3) == -1, "empty");
        check(LinearSearch.indexOf(new int[] {3}, 3) == 0, "single");
    }
}
