class CountZeros {
    public static int countZeros(int[][] m) {
        int count = 0;
        for (int r = 0; r < m.length; r++) {
            int[] row = m[r];
            int zeros = 0;
            for (int c = 0; c < row.length; c++) {
                if (row[c] == 0) {
                    zeros++;
                }
            }
            count += zeros;
        }
        return count;
    }
}
