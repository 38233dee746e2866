public class SumOfEndsTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("SumOfEnds: " + what);
        }
    }

    public static void main(String[] a) {
        check(SumOfEnds.sumOfEnds(new int[] {1, 5, 9}) == 10, "1,5,9");
        check(SumOfEnds.sumOfEnds(new int[] {4}) == 8, "single");
        check(SumOfEnds.sumOfEnds(new int[] {-3, 0, 0, 3}) == 0, "opposite");
        check(SumOfEnds.sumOfEnds(new int[] {1000000000, 1000000000}) == 2000000000, "max");
    }
}
