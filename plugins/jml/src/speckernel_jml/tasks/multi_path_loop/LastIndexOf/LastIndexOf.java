class LastIndexOf {
    public static int lastIndexOf(int[] a, int x) {
        int i = a.length - 1;
        while (i >= 0) {
            if (a[i] == x) {
                return i;
            }
            i--;
        }
        return -1;
    }
}
