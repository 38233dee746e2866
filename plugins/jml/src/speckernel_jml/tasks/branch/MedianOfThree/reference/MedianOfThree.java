class MedianOfThree {
    /*@ public normal_behavior
      @ ensures \result == a || \result == b || \result == c;
      @ ensures (a <= \result ? 1 : 0) + (b <= \result ? 1 : 0) + (c <= \result ? 1 : 0) >= 2;
      @ ensures (a >= \result ? 1 : 0) + (b >= \result ? 1 : 0) + (c >= \result ? 1 : 0) >= 2;
      @ assignable \nothing;
      @*/
    public static int median(int a, int b, int c) {
        if ((a <= b && b <= c) || (c <= b && b <= a)) {
            return b;
        }
        if ((b <= a && a <= c) || (c <= a && a <= b)) {
            return a;
        }
        return c;
    }
}
