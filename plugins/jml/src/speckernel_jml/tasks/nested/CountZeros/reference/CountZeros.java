class CountZeros {
    /*@ public normal_behavior
      @ requires m != null && m.length <= 1000;
      @ requires (\forall int p; 0 <= p && p < m.length; m[p] != null && m[p].length <= 1000);
      @ ensures \result == (\sum int p; 0 <= p && p < m.length;
      @                       (\num_of int q; 0 <= q && q < m[p].length; m[p][q] == 0));
      @ assignable \nothing;
      @*/
    public static int countZeros(int[][] m) {
        int count = 0;
        /*@ loop_invariant 0 <= r && r <= m.length;
          @ loop_invariant count == (\sum int p; 0 <= p && p < r;
          @                            (\num_of int q; 0 <= q && q < m[p].length; m[p][q] == 0));
          @ loop_invariant 0 <= count && count <= r * 1000;
          @ assignable \strictly_nothing;
          @ decreases m.length - r;
          @*/
        for (int r = 0; r < m.length; r++) {
            int[] row = m[r];
            int zeros = 0;
            /*@ loop_invariant 0 <= r && r < m.length && row == m[r];
              @ loop_invariant 0 <= c && c <= row.length;
              @ loop_invariant zeros == (\num_of int q; 0 <= q && q < c; row[q] == 0);
              @ loop_invariant 0 <= zeros && zeros <= c;
              @ assignable \strictly_nothing;
              @ decreases row.length - c;
              @*/
            for (int c = 0; c < row.length; c++) {
                if (row[c] == 0) {
                    zeros++;
                }
            }
            count += zeros;
        }
        return count;
    }
}
