class SumOfEnds {
    /*@ public normal_behavior
      @ requires a != null && a.length >= 1;
      @ requires -1000000000 <= a[0] && a[0] <= 1000000000;
      @ requires -1000000000 <= a[a.length - 1] && a[a.length - 1] <= 1000000000;
      @ ensures \result == a[0] + a[a.length - 1];
      @ assignable \nothing;
      @*/
    public static int sumOfEnds(int[] a) {
        int last = a[a.length - 1];
        return a[0] + last;
    }
}
