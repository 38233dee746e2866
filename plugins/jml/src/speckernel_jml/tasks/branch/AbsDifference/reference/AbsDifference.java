class AbsDifference {
    /*@ public normal_behavior
      @ requires -1000000000 <= a && a <= 1000000000;
      @ requires -1000000000 <= b && b <= 1000000000;
      @ ensures \result >= 0;
      @ ensures \result == a - b || \result == b - a;
      @ assignable \nothing;
      @*/
    public static int absDifference(int a, int b) {
        if (a >= b) {
            return a - b;
        } else {
            return b - a;
        }
    }
}
