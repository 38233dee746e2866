public class GridCellsTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("GridCells: " + what);
        }
    }

    public static void main(String[] a) {
        check(GridCells.cells(3, 4) == 12, "3x4");
        check(GridCells.cells(0, 5) == 0, "no rows");
        check(GridCells.cells(5, 0) == 0, "no columns");
        check(GridCells.cells(1, 1) == 1, "1x1");
        check(GridCells.cells(1000, 1000) == 1000000, "max");
    }
}
