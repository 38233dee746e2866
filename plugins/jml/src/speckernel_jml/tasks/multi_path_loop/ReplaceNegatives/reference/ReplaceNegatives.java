class ReplaceNegatives {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures (\forall int k; 0 <= k && k < a.length;
      @                         a[k] == (\old(a[k]) < 0 ? 0 : \old(a[k])));
      @ assignable a[*];
      @*/
    public static void replaceNegatives(int[] a) {
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant (\forall int k; 0 <= k && k < i;
          @                                a[k] == (\old(a[k]) < 0 ? 0 : \old(a[k])));
          @ loop_invariant (\forall int k; i <= k && k < a.length; a[k] == \old(a[k]));
          @ assignable a[*];
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            if (a[i] < 0) {
                a[i] = 0;
            }
        }
    }
}
