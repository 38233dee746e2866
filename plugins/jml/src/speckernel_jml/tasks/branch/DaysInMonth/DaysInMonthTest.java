public class DaysInMonthTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("DaysInMonth: " + what);
        }
    }

    public static void main(String[] a) {
        check(DaysInMonth.days(1, false) == 31, "january");
        check(DaysInMonth.days(2, true) == 29, "leap february");
        check(DaysInMonth.days(2, false) == 28, "february");
        check(DaysInMonth.days(11, false) == 30, "november");
        check(DaysInMonth.days(12, true) == 31, "december");
    }
}
