class MultiplyByAdding {
    /*@ public normal_behavior
      @ requires -10000 <= x && x <= 10000;
      @ requires 0 <= y && y <= 10000;
      @ ensures \result == x * y;
      @ assignable \nothing;
      @*/
    public static int multiply(int x, int y) {
        int product = 0;
        /*@ loop_invariant 0 <= i && i <= y;
          @ loop_invariant product == x * i;
          @ loop_invariant -10000 * i <= product && product <= 10000 * i;
          @ assignable \nothing;
          @ decreases y - i;
          @*/
        for (int i = 0; i < y; i++) {
            product += x;
        }
        return product;
    }
}
