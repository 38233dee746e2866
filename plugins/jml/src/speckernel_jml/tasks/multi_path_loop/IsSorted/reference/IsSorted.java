class IsSorted {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures \result <==> (\forall int k; 0 <= k && k < a.length - 1; a[k] <= a[k + 1]);
      @ assignable \nothing;
      @*/
    public static boolean isSorted(int[] a) {
        /*@ loop_invariant 0 <= i && (i <= a.length - 1 || i == 0);
          @ loop_invariant (\forall int k; 0 <= k && k < i; a[k] <= a[k + 1]);
          @ assignable \nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 0; i + 1 < a.length; i++) {
            if (a[i] > a[i + 1]) {
                return false;
            }
        }
        return true;
    }
}
