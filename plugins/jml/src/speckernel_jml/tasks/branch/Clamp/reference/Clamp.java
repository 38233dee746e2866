class Clamp {
    /*@ public normal_behavior
      @ requires low <= high;
      @ ensures value < low ==> \result == low;
      @ ensures value > high ==> \result == high;
      @ ensures low <= value && value <= high ==> \result == value;
      @ assignable \nothing;
      @*/
    public static int clamp(int value, int low, int high) {
        if (value < low) {
            return low;
        } else if (value > high) {
            return high;
        }
        return value;
    }
}
