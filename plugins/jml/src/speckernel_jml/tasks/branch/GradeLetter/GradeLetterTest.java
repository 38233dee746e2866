public class GradeLetterTest {
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("GradeLetter: " + what);
        }
    }

    public static void main(String[] a) {
        check(GradeLetter.grade(95) == 'A', "95");
        check(GradeLetter.grade(80) == 'B', "80");
        check(GradeLetter.grade(79) == 'C', "79");
        check(GradeLetter.grade(60) == 'D', "60");
        check(GradeLetter.grade(59) == 'F', "59");
        check(GradeLetter.grade(0) == 'F', "0");
    }
}
