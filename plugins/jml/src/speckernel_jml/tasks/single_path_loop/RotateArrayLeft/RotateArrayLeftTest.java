public class RotateArrayLeftTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("RotateArrayLeft: " + what);
        }
    }

    public static void main(String[] a) {
        int[] x = {1, 2, 3, 4};
        RotateArrayLeft.rotateLeft(x);
        check(x[0] == 2 && x[1] == 3 && x[2] == 4 && x[3] == 1, "1,2,3,4");
        int[] y = {7};
        RotateArrayLeft.rotateLeft(y);
        check(y[0] == 7, "7");
        int[] z = {5, 6};
        RotateArrayLeft.rotateLeft(z);
        check(z[0] == 6 && z[1] == 5, "5,6");
    }
}
