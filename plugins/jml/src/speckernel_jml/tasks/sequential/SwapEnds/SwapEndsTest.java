public class SwapEndsTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("SwapEnds: " + what);
        }
    }

    public static void main(String[] a) {
        int[] x = {1, 2, 3, 4};
        SwapEnds.swapEnds(x);
        check(x[0] == 4 && x[1] == 2 && x[2] == 3 && x[3] == 1, "1,2,3,4");
        int[] y = {9};
        SwapEnds.swapEnds(y);
        check(y[0] == 9, "9");
        int[] z = {7, 8};
        SwapEnds.swapEnds(z);
        check(z[0] == 8 && z[1] == 7, "7,8");
    }
}
