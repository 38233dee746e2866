public class ElapsedMinutesTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("ElapsedMinutes: " + what);
        }
    }

    public static void main(String[] a) {
        check(ElapsedMinutes.elapsedMinutes(9, 30, 10, 15) == 45, "9:30-10:15");
        check(ElapsedMinutes.elapsedMinutes(0, 0, 23, 59) == 1439, "whole day");
        check(ElapsedMinutes.elapsedMinutes(12, 5, 12, 5) == 0, "same time");
        check(ElapsedMinutes.elapsedMinutes(8, 59, 9, 0) == 1, "one minute");
    }
}
