class ArraySum {
    /*@ public normal_behavior
      @ requires a != null && a.length <= 10000;
      @ requires (\forall int k; 0 <= k && k < a.length; -100000 <= a[k] && a[k] <= 100000);
      @ ensures \result == (\sum int k; 0 <= k && k < a.length; a[k]);
      @ assignable \nothing;
      @*/
    public static int sum(int[] a) {
        int total = 0;
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant total == (\sum int k; 0 <= k && k < i; a[k]);
          @ loop_invariant -100000 * i <= total && total <= 100000 * i;
          @ assignable \nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            total += a[i];
        }
        return total;
    }
}
