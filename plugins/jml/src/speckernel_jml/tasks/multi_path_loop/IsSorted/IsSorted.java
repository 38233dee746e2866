class IsSorted {
    public static boolean isSorted(int[] a) {
        for (int i = 0; i + 1 < a.length; i++) {
            if (a[i] > a[i + 1]) {
                return false;
            }
        }
        return true;
    }
}
