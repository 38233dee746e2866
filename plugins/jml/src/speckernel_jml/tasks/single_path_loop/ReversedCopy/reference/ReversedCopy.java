class ReversedCopy {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures \result != null && \fresh(\result);
      @ ensures \result.length == a.length;
      @ ensures (\forall int k; 0 <= k && k < a.length; \result[k] == a[a.length - 1 - k]);
      @ assignable \nothing;
      @*/
    public static int[] reversed(int[] a) {
        int n = a.length;
        int[] out = new int[n];
        /*@ loop_invariant 0 <= i && i <= n;
          @ loop_invariant (\forall int k; 0 <= k && k < i; out[k] == a[n - 1 - k]);
          @ assignable out[*];
          @ decreases n - i;
          @*/
        for (int i = 0; i < n; i++) {
            out[i] = a[n - 1 - i];
        }
        return out;
    }
}
