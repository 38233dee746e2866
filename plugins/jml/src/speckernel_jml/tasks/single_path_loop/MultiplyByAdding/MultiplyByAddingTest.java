public class MultiplyByAddingTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("MultiplyByAdding: " + what);
        }
    }

    public static void main(String[] a) {
        check(MultiplyByAdding.multiply(3, 4) == 12, "3*4");
        check(MultiplyByAdding.multiply(-5, 3) == -15, "-5*3");
        check(MultiplyByAdding.multiply(7, 0) == 0, "7*0");
        check(MultiplyByAdding.multiply(10000, 10000) == 100000000, "max");
    }
}
