public class FillArrayTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("FillArray: " + what);
        }
    }

    public static void main(String[] a) {
        int[] x = {1, 2, 3};
        FillArray.fill(x, 0);
        check(x[0] == 0 && x[1] == 0 && x[2] == 0, "zeros");
        int[] y = {};
        FillArray.fill(y, 5);
        check(y.length == 0, "empty");
        int[] z = {4};
        FillArray.fill(z, -1);
        check(z[0] == -1, "single");
    }
}
