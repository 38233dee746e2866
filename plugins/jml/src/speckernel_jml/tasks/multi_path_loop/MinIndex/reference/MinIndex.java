class MinIndex {
    /*@ public normal_behavior
      @ requires a != null && a.length >= 1;
      @ ensures 0 <= \result && \result < a.length;
      @ ensures (\forall int k; 0 <= k && k < a.length; a[\result] <= a[k]);
      @ ensures (\forall int k; 0 <= k && k < \result; a[\result] < a[k]);
      @ assignable \nothing;
      @*/
    public static int minIndex(int[] a) {
        int best = 0;
        /*@ loop_invariant 1 <= i && i <= a.length;
          @ loop_invariant 0 <= best && best < i;
          @ loop_invariant (\forall int k; 0 <= k && k < i; a[best] <= a[k]);
          @ loop_invariant (\forall int k; 0 <= k && k < best; a[best] < a[k]);
          @ assignable \nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 1; i < a.length; i++) {
            if (a[i] < a[best]) {
                best = i;
            }
        }
        return best;
    }
}
