public class PrefixMaxTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("PrefixMax: " + what);
        }
    }

    public static void main(String[] a) {
        int[] r = PrefixMax.prefixMax(new int[] {2, 1, 5, 3});
        check(r.length == 4 && r[0] == 2 && r[1] == 2 && r[2] == 5 && r[3] == 5, "2,1,5,3");
        check(PrefixMax.prefixMax(new int[] {}).length == 0, "empty");
        int[] s = PrefixMax.prefixMax(new int[] {-1, -3});
        check(s[0] == -1 && s[1] == -1, "negatives");
    }
}
