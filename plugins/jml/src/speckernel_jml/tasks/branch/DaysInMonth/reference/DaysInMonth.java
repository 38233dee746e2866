class DaysInMonth {
    /*@ public normal_behavior
      @ requires 1 <= month && month <= 12;
      @ ensures month == 2 && leap ==> \result == 29;
      @ ensures month == 2 && !leap ==> \result == 28;
      @ ensures month == 4 || month == 6 || month == 9 || month == 11 ==> \result == 30;
      @ ensures month != 2 && month != 4 && month != 6 && month != 9 && month != 11
      @         ==> \result == 31;
      @ assignable \nothing;
      @*/
    public static int days(int month, boolean leap) {
        switch (month) {
            case 2:
                if (leap) {
                    return 29;
                }
                return 28;
            case 4:
            case 6:
            case 9:
            case 11:
                return 30;
            default:
                return 31;
        }
    }
}
