public class CountPositivesTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("CountPositives: " + what);
        }
    }

    public static void main(String[] a) {
        check(CountPositives.countPositives(new int[] {1, -2, 3, 0}) == 2, "mixed");
        check(CountPositives.countPositives(new int[] {}) == 0, "empty");
        check(CountPositives.countPositives(new int[] {-5, -1}) == 0, "negatives");
        check(CountPositives.countPositives(new int[] {9, 9, 9}) == 3, "all");
    }
}
