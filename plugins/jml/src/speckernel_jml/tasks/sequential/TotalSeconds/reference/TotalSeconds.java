class TotalSeconds {
    /*@ public normal_behavior
      @ requires 0 <= hours && hours <= 10000;
      @ requires 0 <= minutes && minutes < 60;
      @ requires 0 <= seconds && seconds < 60;
      @ ensures \result == hours * 3600 + minutes * 60 + seconds;
      @ assignable \nothing;
      @*/
    public static int totalSeconds(int hours, int minutes, int seconds) {
        int fromHours = hours * 3600;
        int fromMinutes = minutes * 60;
        //@ assert fromHours + fromMinutes < (hours + 1) * 3600;
        return fromHours + fromMinutes + seconds;
    }
}
