class ReverseTwoDigits {
    public static int reverseDigits(int n) {
        int tens = n / 10;
        int ones = n % 10;
        return ones * 10 + tens;
    }
}
