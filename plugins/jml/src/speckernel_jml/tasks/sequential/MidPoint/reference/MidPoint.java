class MidPoint {
    /*@ public normal_behavior
      @ requires 0 <= low && low <= high;
      @ ensures low <= \result && \result <= high;
      @ ensures 2 * \result == low + high || 2 * \result + 1 == low + high;
      @ assignable \nothing;
      @*/
    public static int midPoint(int low, int high) {
        int span = high - low;
        return low + span / 2;
    }
}
