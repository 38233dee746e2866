public class MedianOfThreeTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("MedianOfThree: " + what);
        }
    }

    public static void main(String[] a) {
        check(MedianOfThree.median(1, 2, 3) == 2, "sorted");
        check(MedianOfThree.median(9, 4, 6) == 6, "9,4,6");
        check(MedianOfThree.median(5, 5, 1) == 5, "duplicates");
        check(MedianOfThree.median(3, 1, 2) == 2, "3,1,2");
        check(MedianOfThree.median(-4, 0, -8) == -4, "negatives");
    }
}
