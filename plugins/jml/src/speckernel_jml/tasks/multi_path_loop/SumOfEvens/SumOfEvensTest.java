public class SumOfEvensTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("SumOfEvens: " + what);
        }
    }

    public static void main(String[] a) {
        check(SumOfEvens.sumOfEvens(new int[] {1, 2, 3, 4}) == 6, "1..4");
        check(SumOfEvens.sumOfEvens(new int[] {5, 7}) == 0, "odd only");
        check(SumOfEvens.sumOfEvens(new int[] {-2, 3, 10}) == 8, "negative even");
        check(SumOfEvens.sumOfEvens(new int[] {}) == 0, "empty");
    }
}
