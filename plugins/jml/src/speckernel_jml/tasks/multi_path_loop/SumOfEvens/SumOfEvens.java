class SumOfEvens {
    public static int sumOfEvens(int[] a) {
        int total = 0;
        for (int i = 0; i < a.length; i++) {
            if (a[i] % 2 == 0) {
                total += a[i];
            }
        }
        return total;
    }
}
