class DaysInMonth {
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
