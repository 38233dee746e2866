class ReplaceNegatives {
    public static void replaceNegatives(int[] a) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] < 0) {
                a[i] = 0;
            }
        }
    }
}
