class LinearSearch {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures -1 <= \result && \result < a.length;
      @ ensures \result == -1 ==> (\forall int k; 0 <= k && k < a.length; a[k] != x);
      @ ensures \result >= 0 ==> a[\result] == x;
      @ ensures \result >= 0 ==> (\forall int k; 0 <= k && k < \result; a[k] != x);
      @ assignable \nothing;
      @*/
    public static int indexOf(int[] a, int x) {
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant (\forall int k; 0 <= k && k < i; a[k] != x);
          @ assignable \nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            if (a[i] == x) {
                return i;
            }
        }
        return -1;
    }
}
