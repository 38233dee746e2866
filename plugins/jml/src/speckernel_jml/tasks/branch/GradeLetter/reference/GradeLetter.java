class GradeLetter {
    /*@ public normal_behavior
      @ requires 0 <= score && score <= 100;
      @ ensures score >= 90 ==> \result == 'A';
      @ ensures 80 <= score && score < 90 ==> \result == 'B';
      @ ensures 70 <= score && score < 80 ==> \result == 'C';
      @ ensures 60 <= score && score < 70 ==> \result == 'D';
      @ ensures score < 60 ==> \result == 'F';
      @ assignable \nothing;
      @*/
    public static char grade(int score) {
        if (score >= 90) {
            return 'A';
        } else if (score >= 80) {
            return 'B';
        } else if (score >= 70) {
            return 'C';
        } else if (score >= 60) {
            return 'D';
        }
        return 'F';
    }
}
