class PrefixMax {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures \result != null && \fresh(\result) && \result.length == a.length;
      @ ensures (\forall int k; 0 <= k && k < a.length;
      @            (\forall int m; 0 <= m && m <= k; a[m] <= \result[k]));
      @ ensures (\forall int k; 0 <= k && k < a.length;
      @            (\exists int m; 0 <= m && m <= k; a[m] == \result[k]));
      @ assignable \nothing;
      @*/
    public static int[] prefixMax(int[] a) {
        int[] out = new int[a.length];
        /*@ loop_invariant 0 <= i && i <= a.length && out.length == a.length && out != a;
          @ loop_invariant (\forall int k; 0 <= k && k < i;
          @                   (\forall int m; 0 <= m && m <= k; a[m] <= out[k]));
          @ loop_invariant (\forall int k; 0 <= k && k < i;
          @                   (\exists int m; 0 <= m && m <= k; a[m] == out[k]));
          @ assignable out[*];
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            int best = a[0];
            /*@ loop_invariant 0 <= i && i < a.length && 1 <= j && j <= i + 1;
              @ loop_invariant (\forall int m; 0 <= m && m < j; a[m] <= best);
              @ loop_invariant (\exists int m; 0 <= m && m < j; a[m] == best);
              @ assignable \strictly_nothing;
              @ decreases i + 1 - j;
              @*/
            for (int j = 1; j <= i; j++) {
                if (a[j] > best) {
                    best = a[j];
                }
            }
            out[i] = best;
        }
        return out;
    }
}
