class ArrayMax {
    /*@ public normal_behavior
      @ requires a != null && a.length >= 1;
      @ ensures (\forall int k; 0 <= k && k < a.length; a[k] <= \result);
      @ ensures (\exists int k; 0 <= k && k < a.length; a[k] == \result);
      @ assignable \nothing;
      @*/
    public static int max(int[] a) {
        int best = a[0];
        /*@ loop_invariant 1 <= i && i <= a.length;
          @ loop_invariant (\forall int k; 0 <= k && k < i; a[k] <= best);
          @ loop_invariant (\exists int k; 0 <= k && k < i; a[k] == best);
          @ assignable \nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 1; i < a.length; i++) {
            if (a[i] > best) {
                best = a[i];
            }
        }
        return best;
    }
}
