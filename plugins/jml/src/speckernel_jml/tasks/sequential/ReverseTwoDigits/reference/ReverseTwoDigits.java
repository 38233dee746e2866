class ReverseTwoDigits {
    /*@ public normal_behavior
      @ requires 10 <= n && n <= 99;
      @ ensures \result == (n % 10) * 10 + n / 10;
      @ ensures 1 <= \result && \result <= 99;
      @ assignable \nothing;
      @*/
    public static int reverseDigits(int n) {
        int tens = n / 10;
        int ones = n % 10;
        //@ assert 1 <= tens && tens <= 9 && 0 <= ones && ones <= 9;
        return ones * 10 + tens;
    }
}
