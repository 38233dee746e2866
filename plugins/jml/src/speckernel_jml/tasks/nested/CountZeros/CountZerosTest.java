public class CountZerosTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("CountZeros: " + what);
        }
    }

    public static void main(String[] a) {
        check(CountZeros.countZeros(new int[][] {{0, 1}, {2, 0, 0}}) == 3, "ragged");
        check(CountZeros.countZeros(new int[][] {}) == 0, "no rows");
        check(CountZeros.countZeros(new int[][] {{5}, {}}) == 0, "no zeros");
        check(CountZeros.countZeros(new int[][] {{0}, {0}, {0}}) == 3, "column");
    }
}
