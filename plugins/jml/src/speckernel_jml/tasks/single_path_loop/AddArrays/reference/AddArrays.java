class AddArrays {
    /*@ public normal_behavior
      @ requires a != null && b != null && a.length == b.length;
      @ requires (\forall int k; 0 <= k && k < a.length; -1000000000 <= a[k] && a[k] <= 1000000000);
      @ requires (\forall int k; 0 <= k && k < b.length; -1000000000 <= b[k] && b[k] <= 1000000000);
      @ ensures \result != null && \fresh(\result) && \result.length == a.length;
      @ ensures (\forall int k; 0 <= k && k < a.length; \result[k] == a[k] + b[k]);
      @ assignable \nothing;
      @*/
    public static int[] add(int[] a, int[] b) {
        int[] sum = new int[a.length];
        /*@ loop_invariant 0 <= i && i <= a.length && sum.length == a.length;
          @ loop_invariant sum != a && sum != b;
          @ loop_invariant (\forall int k; 0 <= k && k < i; sum[k] == a[k] + b[k]);
          @ assignable sum[*];
          @ decreases a.length - i;
          @*/
        for (int i = 0; i < a.length; i++) {
            sum[i] = a[i] + b[i];
        }
        return sum;
    }
}
