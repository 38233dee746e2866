class TotalSeconds {
    public static int totalSeconds(int hours, int minutes, int seconds) {
        int fromHours = hours * 3600;
        int fromMinutes = minutes * 60;
        return fromHours + fromMinutes + seconds;
    }
}
