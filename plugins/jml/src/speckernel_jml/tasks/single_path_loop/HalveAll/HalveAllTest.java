public class HalveAllTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("HalveAll: " + what);
        }
    }

    public static void main(String[] a) {
        int[] x = {4, 7, -5};
        HalveAll.halveAll(x);
        check(x[0] == 2 && x[1] == 3 && x[2] == -2, "4,7,-5");
        int[] y = {1};
        HalveAll.halveAll(y);
        check(y[0] == 0, "1");
        int[] z = {};
        HalveAll.halveAll(z);
        check(z.length == 0, "empty");
    }
}
