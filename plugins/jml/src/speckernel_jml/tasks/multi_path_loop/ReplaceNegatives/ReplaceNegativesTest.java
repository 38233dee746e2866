public class ReplaceNegativesTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("ReplaceNegatives: " + what);
        }
    }

    public static void main(String[] a) {
        int[] x = {3, -1, 0, -7};
        ReplaceNegatives.replaceNegatives(x);
        check(x[0] == 3 && x[1] == 0 && x[2] == 0 && x[3] == 0, "mixed");
        int[] y = {1, 2};
        ReplaceNegatives.replaceNegatives(y);
        check(y[0] == 1 && y[1] == 2, "positives");
        int[] z = {-5};
        ReplaceNegatives.replaceNegatives(z);
        check(z[0] == 0, "single negative");
    }
}
