class SumOfOdds {
    public static int sumOfOdds(int n) {
        int total = 0;
        int odd = 1;
        for (int i = 0; i < n; i++) {
            total += odd;
            odd += 2;
        }
        return total;
    }
}
