class LargestOfThree {
    /*@ public normal_behavior
      @ ensures \result >= a && \result >= b && \result >= c;
      @ ensures \result == a || \result == b || \result == c;
      @ assignable \nothing;
      @*/
    public static int largest(int a, int b, int c) {
        int best = a;
        if (b > best) {
            best = b;
        }
        if (c > best) {
            best = c;
        }
        return best;
    }
}
