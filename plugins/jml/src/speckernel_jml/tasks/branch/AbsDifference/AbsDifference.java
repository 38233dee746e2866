class AbsDifference {
    public static int absDifference(int a, int b) {
        if (a >= b) {
            return a - b;
        } else {
            return b - a;
        }
    }
}
