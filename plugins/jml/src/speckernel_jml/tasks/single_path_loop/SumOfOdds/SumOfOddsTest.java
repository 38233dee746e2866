public class SumOfOddsTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("SumOfOdds: " + what);
        }
    }

    public static void main(String[] a) {
        check(SumOfOdds.sumOfOdds(0) == 0, "0");
        check(SumOfOdds.sumOfOdds(1) == 1, "1");
        check(SumOfOdds.sumOfOdds(3) == 9, "3");
        check(SumOfOdds.sumOfOdds(10) == 100, "10");
        check(SumOfOdds.sumOfOdds(20000) == 400000000, "20000");
    }
}
