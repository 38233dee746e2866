class HasDuplicate {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures \result <==> (\exists int p; 0 <= p && p < a.length;
      @                         (\exists int q; p < q && q < a.length; a[p] == a[q]));
      @ assignable \nothing;
      @*/
    public static boolean hasDuplicate(int[] a) {
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant (\forall int p; 0 <= p && p < i;
          @                   (\forall int q; p < q && q < a.length; a[p] != a[q]));
          @ assignable \strictly_nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            boolean repeated = false;
            /*@ loop_invariant 0 <= i && i < a.length && i + 1 <= j && j <= a.length;
              @ loop_invariant repeated <==> (\exists int q; i < q && q < j; a[i] == a[q]);
              @ assignable \strictly_nothing;
              @ decreases a.length - j;
              @*/
            for (int j = i + 1; j < a.length; j++) {
                if (a[i] == a[j]) {
                    repeated = true;
                }
            }
            if (repeated) {
                return true;
            }
        }
        return false;
    }
}
