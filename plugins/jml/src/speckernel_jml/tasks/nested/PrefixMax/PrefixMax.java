class PrefixMax {
    public static int[] prefixMax(int[] a) {
        int[] out = new int[a.length];
        for (int i = 0; i < a.length; i++) {
            int best = a[0];
            for (int j = 1; j <= i; j++) {
                if (a[j] > best) {
                    best = a[j];
                }
            }
            out[i] = best;
        }
        return out;
    }
}
