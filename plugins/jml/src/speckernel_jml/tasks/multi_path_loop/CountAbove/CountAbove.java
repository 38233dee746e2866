class CountAbove {
    public static int countAbove(int[] a, int threshold) {
        int above = 0;
        for (int i = 0; i < a.length; i++) {
            if (a[i] > threshold) {
                above++;
            }
        }
        return above;
    }
}
