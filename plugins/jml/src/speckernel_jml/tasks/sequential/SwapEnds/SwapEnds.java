class SwapEnds {
    public static void swapEnds(int[] a) {
        int last = a.length - 1;
        int first = a[0];
        a[0] = a[last];
        a[last] = first;
    }
}
