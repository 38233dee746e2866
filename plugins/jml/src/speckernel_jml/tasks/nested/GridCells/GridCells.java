class GridCells {
    public static int cells(int rows, int cols) {
        int count = 0;
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                count++;
            }
        }
        return count;
    }
}
