public class HasDuplicateTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("HasDuplicate: " + what);
        }
    }

    public static void main(String[] a) {
        check(HasDuplicate.hasDuplicate(new int[] {1, 2, 3, 2}), "1,2,3,2");
        check(!HasDuplicate.hasDuplicate(new int[] {1, 2, 3}), "distinct");
        check(!HasDuplicate.hasDuplicate(new int[] {}), "empty");
        check(HasDuplicate.hasDuplicate(new int[] {5, 5}), "pair");
        check(!HasDuplicate.hasDuplicate(new int[] {7}), "single");
    }
}
