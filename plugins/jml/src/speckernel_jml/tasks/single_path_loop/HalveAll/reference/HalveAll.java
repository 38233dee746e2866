class HalveAll {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures (\forall int k; 0 <= k && k < a.length; a[k] == \old(a[k]) / 2);
      @ assignable a[*];
      @*/
    public static void halveAll(int[] a) {
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant (\forall int k; 0 <= k && k < i; a[k] == \old(a[k]) / 2);
          @ loop_invariant (\forall int k; i <= k && k < a.length; a[k] == \old(a[k]));
          @ assignable a[*];
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            a[i] = a[i] / 2;
        }
    }
}
