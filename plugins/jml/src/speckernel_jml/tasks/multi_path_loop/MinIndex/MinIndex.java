class MinIndex {
    public static int minIndex(int[] a) {
        int best = 0;
        for (int i = 1; i < a.length; i++) {
            if (a[i] < a[best]) {
                best = i;
            }
        }
        return best;
    }
}
