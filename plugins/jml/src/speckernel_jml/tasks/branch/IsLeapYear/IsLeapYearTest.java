public class IsLeapYearTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("IsLeapYear: " + what);
        }
    }

    public static void main(String[] a) {
        check(IsLeapYear.isLeapYear(2024), "2024");
        check(!IsLeapYear.isLeapYear(1900), "1900");
        check(IsLeapYear.isLeapYear(2000), "2000");
        check(!IsLeapYear.isLeapYear(2023), "2023");
        check(IsLeapYear.isLeapYear(4), "4");
    }
}
