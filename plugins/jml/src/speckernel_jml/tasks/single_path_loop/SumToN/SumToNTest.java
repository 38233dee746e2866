public class SumToNTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("SumToN: " + what);
        }
    }

    public static void main(String[] a) {
        check(SumToN.sumTo(0) == 0, "0");
        check(SumToN.sumTo(1) == 1, "1");
        check(SumToN.sumTo(4) == 10, "4");
        check(SumToN.sumTo(100) == 5050, "100");
        check(SumToN.sumTo(10000) == 50005000, "10000");
    }
}
