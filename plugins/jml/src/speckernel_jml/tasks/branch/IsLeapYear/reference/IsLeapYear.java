class IsLeapYear {
    /*@ public normal_behavior
      @ requires year >= 1;
      @ ensures \result <==> (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
      @ assignable \nothing;
      @*/
    public static boolean isLeapYear(int year) {
        if (year % 400 == 0) {
            return true;
        }
        if (year % 100 == 0) {
            return false;
        }
        return year % 4 == 0;
    }
}
