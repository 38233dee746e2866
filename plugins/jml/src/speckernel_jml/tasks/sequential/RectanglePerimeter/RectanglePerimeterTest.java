public class RectanglePerimeterTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("RectanglePerimeter: " + what);
        }
    }

    public static void main(String[] a) {
        check(RectanglePerimeter.perimeter(3, 4) == 14, "3x4");
        check(RectanglePerimeter.perimeter(0, 5) == 10, "0x5");
        check(RectanglePerimeter.perimeter(7, 7) == 28, "7x7");
        check(RectanglePerimeter.perimeter(0, 0) == 0, "0x0");
        check(RectanglePerimeter.perimeter(100000000, 100000000) == 400000000, "max");
    }
}
