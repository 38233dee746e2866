package java.lang;

/* Character classes are stated exactly for ASCII (0..127), where the Java SE documentation's
 * Unicode categories coincide with the familiar ranges; beyond ASCII the contracts say nothing
 * about the result (Unicode has further digits, letters and case pairs). */
public final class Character implements java.io.Serializable, java.lang.Comparable {

    private /*@ spec_public @*/ final char value;


    public static final char MIN_VALUE = '\u0000';
    public static final char MAX_VALUE = '\uffff';

    /*@ public normal_behavior
      @ ensures \result != null && \result.value == c;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.Character valueOf(char c);

    /*@ public normal_behavior
      @ ensures \result == value;
      @ assignable \nothing;
      @ accessible value;
      @*/
    public /*@ pure @*/ char charValue();

    /*@ public normal_behavior
      @ ensures c < 128 ==> (\result <==> ('0' <= c && c <= '9'));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ boolean isDigit(char c);

    /*@ public normal_behavior
      @ ensures c < 128 ==> (\result <==> ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ boolean isLetter(char c);

    /*@ public normal_behavior
      @ ensures c < 128 ==> (\result <==> ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
      @                                    || '0' <= c && c <= '9'));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ boolean isLetterOrDigit(char c);

    /*@ public normal_behavior
      @ ensures c < 128 ==> (\result <==> ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ boolean isAlphabetic(int c);

    /*@ public normal_behavior
      @ ensures c < 128 ==> (\result <==> ('A' <= c && c <= 'Z'));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ boolean isUpperCase(char c);

    /*@ public normal_behavior
      @ ensures c < 128 ==> (\result <==> ('a' <= c && c <= 'z'));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ boolean isLowerCase(char c);

    /*@ public normal_behavior
      @ ensures c < 128 ==> (\result <==> (c == ' ' || 9 <= c && c <= 13 || 28 <= c && c <= 31));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ boolean isWhitespace(char c);

    /*@ public normal_behavior
      @ ensures c < 128 ==> \result == ('a' <= c && c <= 'z' ? c - 32 : c);
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ char toUpperCase(char c);

    /*@ public normal_behavior
      @ ensures c < 128 ==> \result == ('A' <= c && c <= 'Z' ? c + 32 : c);
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ char toLowerCase(char c);

    /*@ public normal_behavior
      @ ensures '0' <= c && c <= '9' ==> \result == c - '0';
      @ ensures 'a' <= c && c <= 'z' ==> \result == c - 'a' + 10;
      @ ensures 'A' <= c && c <= 'Z' ==> \result == c - 'A' + 10;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ int getNumericValue(char c);

    /*@ public normal_behavior
      @ ensures \result != null;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.String toString(char c);

    /*@ public normal_behavior
      @ ensures \result != null;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ java.lang.String toString();

    /*@ public normal_behavior
      @ ensures \result == (o instanceof java.lang.Character
      @                     && ((java.lang.Character) o).value == value);
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ boolean equals(/*@ nullable @*/ java.lang.Object o);

    /*@ public normal_behavior
      @ ensures \result == x - y;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ int compare(char x, char y);

    static int digit(char ch, int radix);

    public /*@ pure @*/ int hashCode();
}
