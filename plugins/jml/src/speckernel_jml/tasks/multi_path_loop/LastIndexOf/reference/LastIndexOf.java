class LastIndexOf {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures -1 <= \result && \result < a.length;
      @ ensures \result == -1 ==> (\forall int k; 0 <= k && k < a.length; a[k] != x);
      @ ensures \result >= 0 ==> a[\result] == x;
      @ ensures (\forall int k; \result < k && k < a.length; a[k] != x);
      @ assignable \nothing;
      @*/
    public static int lastIndexOf(int[] a, int x) {
        int i = a.length - 1;
        /*@ loop_invariant -1 <= i && i < a.length;
          @ loop_invariant (\forall int k; i < k && k < a.length; a[k] != x);
          @ assignable \nothing;
          @ decreases i + 1;
          @*/
        while (i >= 0) {
            if (a[i] == x) {
                return i;
            }
            i--;
        }
        return -1;
    }
}
