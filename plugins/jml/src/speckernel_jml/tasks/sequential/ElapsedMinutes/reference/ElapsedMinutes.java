class ElapsedMinutes {
    /*@ public normal_behavior
      @ requires 0 <= startHour && startHour < 24 && 0 <= startMinute && startMinute < 60;
      @ requires 0 <= endHour && endHour < 24 && 0 <= endMinute && endMinute < 60;
      @ requires startHour * 60 + startMinute <= endHour * 60 + endMinute;
      @ ensures \result == (endHour - startHour) * 60 + endMinute - startMinute;
      @ ensures 0 <= \result && \result < 1440;
      @ assignable \nothing;
      @*/
    public static int elapsedMinutes(int startHour, int startMinute, int endHour, int endMinute) {
        int start = startHour * 60 + startMinute;
        int end = endHour * 60 + endMinute;
        return end - start;
    }
}
