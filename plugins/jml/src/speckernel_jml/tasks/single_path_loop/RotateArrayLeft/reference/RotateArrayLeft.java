class RotateArrayLeft {
    /*@ public normal_behavior
      @ requires a != null && a.length >= 1;
      @ ensures (\forall int k; 0 <= k && k < a.length - 1; a[k] == \old(a[k + 1]));
      @ ensures a[a.length - 1] == \old(a[0]);
      @ assignable a[*];
      @*/
    public static void rotateLeft(int[] a) {
        int first = a[0];
        /*@ loop_invariant 0 <= i && i <= a.length - 1;
          @ loop_invariant first == \old(a[0]);
          @ loop_invariant (\forall int k; 0 <= k && k < i; a[k] == \old(a[k + 1]));
          @ loop_invariant (\forall int k; i <= k && k < a.length; a[k] == \old(a[k]));
          @ assignable a[*];
          @ decreases a.length - 1 - i;
          @*/
        for (int i = 0; i < a.length - 1; i++) {
            a[i] = a[i + 1];
        }
        a[a.length - 1] = first;
    }
}
