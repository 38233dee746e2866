class FillArray {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures (\forall int k; 0 <= k && k < a.length; a[k] == value);
      @ assignable a[*];
      @*/
    public static void fill(int[] a, int value) {
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant (\forall int k; 0 <= k && k < i; a[k] == value);
          @ assignable a[*];
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            a[i] = value;
        }
    }
}
