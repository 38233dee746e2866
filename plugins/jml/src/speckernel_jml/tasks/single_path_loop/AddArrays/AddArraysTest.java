public class AddArraysTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("AddArrays: " + what);
        }
    }

    public static void main(String[] a) {
        int[] r = AddArrays.add(new int[] {1, 2, 3}, new int[] {10, 20, 30});
        check(r.length == 3 && r[0] == 11 && r[1] == 22 && r[2] == 33, "1,2,3");
        check(AddArrays.add(new int[] {}, new int[] {}).length == 0, "empty");
        int[] s = AddArrays.add(new int[] {-5, 5}, new int[] {5, -6});
        check(s[0] == 0 && s[1] == -1, "signs");
    }
}
