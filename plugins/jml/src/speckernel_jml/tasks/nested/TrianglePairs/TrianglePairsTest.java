public class TrianglePairsTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("TrianglePairs: " + what);
        }
    }

    public static void main(String[] a) {
        check(TrianglePairs.pairs(0) == 0, "0");
        check(TrianglePairs.pairs(1) == 1, "1");
        check(TrianglePairs.pairs(3) == 6, "3");
        check(TrianglePairs.pairs(10) == 55, "10");
        check(TrianglePairs.pairs(10000) == 50005000, "10000");
    }
}
