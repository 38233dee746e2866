public class TotalSecondsTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("TotalSeconds: " + what);
        }
    }

    public static void main(String[] a) {
        check(TotalSeconds.totalSeconds(0, 0, 0) == 0, "zero");
        check(TotalSeconds.totalSeconds(1, 2, 3) == 3723, "1h2m3s");
        check(TotalSeconds.totalSeconds(2, 0, 59) == 7259, "2h0m59s");
        check(TotalSeconds.totalSeconds(0, 59, 0) == 3540, "59m");
        check(TotalSeconds.totalSeconds(10000, 59, 59) == 36003599, "max");
    }
}
