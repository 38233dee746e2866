class ElapsedMinutes {
    public static int elapsedMinutes(int startHour, int startMinute, int endHour, int endMinute) {
        int start = startHour * 60 + startMinute;
        int end = endHour * 60 + endMinute;
        return end - start;
    }
}
