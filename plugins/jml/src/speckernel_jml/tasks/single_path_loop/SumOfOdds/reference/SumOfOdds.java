class SumOfOdds {
    /*@ public normal_behavior
      @ requires 0 <= n && n <= 20000;
      @ ensures \result == n * n;
      @ assignable \nothing;
      @*/
    public static int sumOfOdds(int n) {
        int total = 0;
        int odd = 1;
        /*@ loop_invariant 0 <= i && i <= n;
          @ loop_invariant odd == 2 * i + 1;
          @ loop_invariant total == i * i;
          @ loop_invariant 0 <= total && total <= 40001 * i;
          @ assignable \nothing;
          @ decreases n - i;
          @*/
        for (int i = 0; i < n; i++) {
            total += odd;
            odd += 2;
        }
        return total;
    }
}
