public class ContainsAllTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("ContainsAll: " + what);
        }
    }

    public static void main(String[] a) {
        check(ContainsAll.containsAll(new int[] {1, 2, 3}, new int[] {3, 1}), "subset");
        check(!ContainsAll.containsAll(new int[] {1, 2, 3}, new int[] {4}), "missing");
        check(ContainsAll.containsAll(new int[] {}, new int[] {}), "empty");
        check(!ContainsAll.containsAll(new int[] {}, new int[] {0}), "empty a");
        check(ContainsAll.containsAll(new int[] {2}, new int[] {2, 2}), "repeated");
    }
}
