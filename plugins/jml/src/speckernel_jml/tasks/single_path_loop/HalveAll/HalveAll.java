class HalveAll {
    public static void halveAll(int[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] = a[i] / 2;
        }
    }
}
