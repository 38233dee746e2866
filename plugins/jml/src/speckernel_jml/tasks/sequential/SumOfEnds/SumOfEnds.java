class SumOfEnds {
    public static int sumOfEnds(int[] a) {
        int last = a[a.length - 1];
        return a[0] + last;
    }
}
