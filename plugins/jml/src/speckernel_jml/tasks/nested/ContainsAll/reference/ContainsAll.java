class ContainsAll {
    /*@ public normal_behavior
      @ requires a != null && b != null;
      @ ensures \result <==> (\forall int p; 0 <= p && p < b.length;
      @                         (\exists int q; 0 <= q && q < a.length; a[q] == b[p]));
      @ assignable \nothing;
      @*/
    public static boolean containsAll(int[] a, int[] b) {
        /*@ loop_invariant 0 <= i && i <= b.length;
          @ loop_invariant (\forall int p; 0 <= p && p < i;
          @                   (\exists int q; 0 <= q && q < a.length; a[q] == b[p]));
          @ assignable \nothing;
          @ decreases b.length - i;
          @*/
        for (int i = 0; i < b.length; i++) {
            boolean found = false;
            /*@ loop_invariant 0 <= i && i < b.length && 0 <= j && j <= a.length;
              @ loop_invariant found <==> (\exists int q; 0 <= q && q < j; a[q] == b[i]);
              @ assignable \nothing;
              @ decreases a.length - j;
              @*/
            for (int j = 0; j < a.length; j++) {
                if (a[j] == b[i]) {
                    found = true;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }
}
