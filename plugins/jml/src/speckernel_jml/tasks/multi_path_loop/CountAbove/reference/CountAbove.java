class CountAbove {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures \result == (\num_of int k; 0 <= k && k < a.length; a[k] > threshold);
      @ assignable \nothing;
      @*/
    public static int countAbove(int[] a, int threshold) {
        int above = 0;
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant above == (\num_of int k; 0 <= k && k < i; a[k] > threshold);
          @ loop_invariant 0 <= above && above <= i;
          @ assignable \nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            if (a[i] > threshold) {
                above++;
            }
        }
        return above;
    }
}
