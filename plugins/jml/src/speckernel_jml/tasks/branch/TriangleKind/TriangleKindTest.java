public class TriangleKindTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("TriangleKind: " + what);
        }
    }

    public static void main(String[] a) {
        check(TriangleKind.kind(1, 2, 3) == 0, "degenerate");
        check(TriangleKind.kind(5, 5, 5) == 1, "equilateral");
        check(TriangleKind.kind(5, 5, 8) == 2, "isosceles");
        check(TriangleKind.kind(8, 5, 5) == 2, "isosceles rotated");
        check(TriangleKind.kind(3, 4, 5) == 3, "scalene");
        check(TriangleKind.kind(1, 1, 1000000000) == 0, "too long");
    }
}
