class SwapEnds {
    /*@ public normal_behavior
      @ requires a != null && a.length >= 1;
      @ ensures a[0] == \old(a[a.length - 1]);
      @ ensures a[a.length - 1] == \old(a[0]);
      @ ensures (\forall int k; 0 < k && k < a.length - 1; a[k] == \old(a[k]));
      @ assignable a[0], a[a.length - 1];
      @*/
    public static void swapEnds(int[] a) {
        int last = a.length - 1;
        int first = a[0];
        a[0] = a[last];
        a[last] = first;
    }
}
