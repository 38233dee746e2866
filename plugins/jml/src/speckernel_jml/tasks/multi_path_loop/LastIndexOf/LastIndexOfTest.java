public class LastIndexOfTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("LastIndexOf: " + what);
        }
    }

    public static void main(String[] a) {
        check(LastIndexOf.lastIndexOf(new int[] {4, 7, 7, 1}, 7) == 2, "last of two");
        check(LastIndexOf.lastIndexOf(new int[] {4, 7, 1}, 5) == -1, "absent");
        check(LastIndexOf.lastIndexOf(new int[] {9, 2}, 9) == 0, "front");
        check(LastIndexOf.lastIndexOf(new int[] {}, 1) == -1, "empty");
    }
}
