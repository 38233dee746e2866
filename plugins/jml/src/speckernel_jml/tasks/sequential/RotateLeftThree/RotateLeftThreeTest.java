public class RotateLeftThreeTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("RotateLeftThree: " + what);
        }
    }

    public static void main(String[] a) {
        int[] x = {1, 2, 3};
        RotateLeftThree.rotateLeftThree(x);
        check(x[0] == 2 && x[1] == 3 && x[2] == 1, "1,2,3");
        int[] y = {5, 5, 0};
        RotateLeftThree.rotateLeftThree(y);
        check(y[0] == 5 && y[1] == 0 && y[2] == 5, "5,5,0");
        int[] z = {-1, 0, 1};
        RotateLeftThree.rotateLeftThree(z);
        check(z[0] == 0 && z[1] == 1 && z[2] == -1, "-1,0,1");
    }
}
