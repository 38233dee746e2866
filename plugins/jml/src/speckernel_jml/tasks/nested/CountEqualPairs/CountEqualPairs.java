class CountEqualPairs {
    public static int countEqualPairs(int[] a, int[] b) {
        int count = 0;
        for (int i = 0; i < a.length; i++) {
            int row = 0;
            for (int j = 0; j < b.length; j++) {
                if (a[i] == b[j]) {
                    row++;
                }
            }
            count += row;
        }
        return count;
    }
}
