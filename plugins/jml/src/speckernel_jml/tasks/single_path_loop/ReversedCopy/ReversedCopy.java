class ReversedCopy {
    public static int[] reversed(int[] a) {
        int n = a.length;
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = a[n - 1 - i];
        }
        return out;
    }
}
