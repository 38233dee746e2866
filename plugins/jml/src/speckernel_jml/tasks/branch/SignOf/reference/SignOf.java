class SignOf {
    /*@ public normal_behavior
      @ ensures x < 0 ==> \result == -1;
      @ ensures x == 0 ==> \result == 0;
      @ ensures x > 0 ==> \result == 1;
      @ assignable \nothing;
      @*/
    public static int sign(int x) {
        if (x > 0) {
            return 1;
        }
        if (x < 0) {
            return -1;
        }
        return 0;
    }
}
