class CountPositives {
    /*@ public normal_behavior
      @ requires a != null;
      @ ensures \result == (\num_of int k; 0 <= k && k < a.length; a[k] > 0);
      @ assignable \nothing;
      @*/
    public static int countPositives(int[] a) {
        int count = 0;
        /*@ loop_invariant 0 <= i && i <= a.length;
          @ loop_invariant count == (\num_of int k; 0 <= k && k < i; a[k] > 0);
          @ loop_invariant 0 <= count && count <= i;
          @ assignable \nothing;
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            if (a[i] > 0) {
                count++;
            }
        }
        return count;
    }
}
