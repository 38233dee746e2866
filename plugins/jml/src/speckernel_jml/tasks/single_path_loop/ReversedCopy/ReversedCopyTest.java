public class ReversedCopyTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("ReversedCopy: " + what);
        }
    }

    public static void main(String[] a) {
        int[] r = ReversedCopy.reversed(new int[] {1, 2, 3});
        check(r.length == 3 && r[0] == 3 && r[1] == 2 && r[2] == 1, "1,2,3");
        check(ReversedCopy.reversed(new int[] {}).length == 0, "empty");
        int[] in = {4, 4, 7, 0};
        int[] s = ReversedCopy.reversed(in);
        check(s[0] == 0 && s[1] == 7 && s[2] == 4 && s[3] == 4, "4,4,7,0");
        check(in[0] == 4 && in[3] == 0, "input untouched");
    }
}
