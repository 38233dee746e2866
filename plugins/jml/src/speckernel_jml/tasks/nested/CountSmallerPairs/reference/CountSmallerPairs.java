class CountSmallerPairs {
    /*@ public normal_behavior
      @ requires a != null && b != null && a.length <= 1000 && b.length <= 1000;
      @ ensures \result == (\sum int p; 0 <= p && p < a.length;
      @                       (\num_of int q; 0 <= q && q < b.length; a[p] < b[q]));
      @ assignable \nothing;
      @*/
    public static int countSmallerPairs(int[] a, int[] b) {
        int count = 0;
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant count == (\sum int p; 0 <= p && p < i;
          @                            (\num_of int q; 0 <= q && q < b.length; a[p] < b[q]));
          @ loop_invariant 0 <= count && count <= i * 1000;
          @ assignable \strictly_nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            int row = 0;
            /*@ loop_invariant 0 <= i && i < a.length && 0 <= j && j <= b.length;
              @ loop_invariant row == (\num_of int q; 0 <= q && q < j; a[i] < b[q]);
              @ loop_invariant 0 <= row && row <= j;
              @ assignable \strictly_nothing;
              @ decreases b.length - j;
              @*/
            for (int j = 0; j < b.length; j++) {
                if (a[i] < b[j]) {
                    row++;
                }
            }
            count += row;
        }
        return count;
    }
}
