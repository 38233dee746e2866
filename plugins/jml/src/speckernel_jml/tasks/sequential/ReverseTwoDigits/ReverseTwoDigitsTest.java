public class ReverseTwoDigitsTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("ReverseTwoDigits: " + what);
        }
    }

    public static void main(String[] a) {
        check(ReverseTwoDigits.reverseDigits(12) == 21, "12");
        check(ReverseTwoDigits.reverseDigits(70) == 7, "70");
        check(ReverseTwoDigits.reverseDigits(99) == 99, "99");
        check(ReverseTwoDigits.reverseDigits(10) == 1, "10");
        check(ReverseTwoDigits.reverseDigits(45) == 54, "45");
    }
}
