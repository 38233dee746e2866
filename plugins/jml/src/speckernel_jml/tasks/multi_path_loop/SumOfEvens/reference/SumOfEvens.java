class SumOfEvens {
    /*@ public normal_behavior
      @ requires a != null && a.length <= 10000;
      @ requires (\forall int k; 0 <= k && k < a.length; -100000 <= a[k] && a[k] <= 100000);
      @ ensures \result == (\sum int k; 0 <= k && k < a.length; (a[k] % 2 == 0 ? a[k] : 0));
      @ assignable \nothing;
      @*/
    public static int sumOfEvens(int[] a) {
        int total = 0;
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant total == (\sum int k; 0 <= k && k < i; (a[k] % 2 == 0 ? a[k] : 0));
          @ loop_invariant -100000 * i <= total && total <= 100000 * i;
          @ assignable \nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            if (a[i] % 2 == 0) {
                total += a[i];
            }
        }
        return total;
    }
}
