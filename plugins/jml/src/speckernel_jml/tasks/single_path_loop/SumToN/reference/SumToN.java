class SumToN {
    /*@ public normal_behavior
      @ requires 0 <= n && n <= 10000;
      @ ensures 2 * \result == n * (n + 1);
      @ assignable \nothing;
      @*/
    public static int sumTo(int n) {
        int total = 0;
        int i = 1;
        /*@ loop_invariant 1 <= i && i <= n + 1;
          @ loop_invariant 2 * total == (i - 1) * i;
          @ loop_invariant 0 <= total && total <= 10000 * i;
          @ assignable \nothing;
          @ decreases n + 1 - i;
          @*/
        while (i <= n) {
            total += i;
            i++;
        }
        return total;
    }
}
