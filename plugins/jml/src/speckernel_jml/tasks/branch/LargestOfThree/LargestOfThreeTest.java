public class LargestOfThreeTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("LargestOfThree: " + what);
        }
    }

    public static void main(String[] a) {
        check(LargestOfThree.largest(1, 2, 3) == 3, "1,2,3");
        check(LargestOfThree.largest(5, -1, 5) == 5, "5,-1,5");
        check(LargestOfThree.largest(-7, -3, -9) == -3, "negatives");
        check(LargestOfThree.largest(4, 9, 2) == 9, "middle");
    }
}
