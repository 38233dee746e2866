class TrianglePairs {
    /*@ public normal_behavior
      @ requires 0 <= n && n <= 10000;
      @ ensures 2 * \result == n * (n + 1);
      @ assignable \nothing;
      @*/
    public static int pairs(int n) {
        int count = 0;
        /*@ loop_invariant 0 <= i && i <= n;
          @ loop_invariant 2 * count == i * (i + 1);
          @ loop_invariant 0 <= count && count <= 10000 * i;
          @ assignable \nothing;
          @ decreases n - i;
          @*/
        for (int i = 0; i < n; i++) {
            /*@ loop_invariant 0 <= i && i < n && 0 <= j && j <= i + 1;
              @ loop_invariant 2 * count == i * (i + 1) + 2 * j;
              @ loop_invariant 0 <= count && count <= 10000 * i + j;
              @ assignable \nothing;
              @ decreases i + 1 - j;
              @*/
            for (int j = 0; j <= i; j++) {
                count++;
            }
        }
        return count;
    }
}
