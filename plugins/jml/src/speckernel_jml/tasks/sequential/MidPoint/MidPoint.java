class MidPoint {
    public static int midPoint(int low, int high) {
        int span = high - low;
        return low + span / 2;
    }
}
