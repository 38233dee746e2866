package java.lang;

public final class Integer implements java.lang.Comparable {

    private /*@ spec_public @*/ final int value;


    public static final int MIN_VALUE = -2147483648;
    public static final int MAX_VALUE = 2147483647;
    public static final int SIZE = 32;

    /*@ public normal_behavior
      @ ensures \result != null && \result.value == i;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.Integer valueOf(int i);

    /*@ public normal_behavior
      @ ensures this.value == value;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ Integer(int value);

    /*@ public normal_behavior
      @ ensures \result == value;
      @ assignable \nothing;
      @ accessible value;
      @*/
    public /*@ pure @*/ int intValue();

    /*@ public normal_behavior
      @ ensures \result == value;
      @ assignable \nothing;
      @ accessible value;
      @*/
    public /*@ pure @*/ long longValue();

    /*@ public normal_behavior
      @ assignable \nothing;
      @ accessible value;
      @*/
    public /*@ pure @*/ double doubleValue();

    /*@ public behavior
      @ ensures true;
      @ signals_only java.lang.NumberFormatException;
      @ assignable \nothing;
      @*/
    public static int parseInt(/*@ nullable @*/ java.lang.String s)
        throws java.lang.NumberFormatException;

    /*@ public behavior
      @ ensures \result != null;
      @ signals_only java.lang.NumberFormatException;
      @ assignable \nothing;
      @*/
    public static java.lang.Integer valueOf(/*@ nullable @*/ java.lang.String s)
        throws java.lang.NumberFormatException;

    /*@ public normal_behavior
      @ ensures \result != null;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.String toString(int i);

    /*@ public normal_behavior
      @ ensures \result != null;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.String toBinaryString(int i);

    /*@ public normal_behavior
      @ ensures \result != null;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ java.lang.String toString();

    /*@ public normal_behavior
      @ ensures \result == (x < y ? -1 : (x == y ? 0 : 1));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ int compare(int x, int y);

    /*@ public normal_behavior
      @ ensures \result == (value < other.value ? -1 : (value == other.value ? 0 : 1));
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ int compareTo(java.lang.Integer other);

    /*@ public normal_behavior
      @ ensures \result == (o instanceof java.lang.Integer
      @                     && ((java.lang.Integer) o).value == value);
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ boolean equals(/*@ nullable @*/ java.lang.Object o);

    /*@ public normal_behavior
      @ ensures \result == (i < 0 ? -1 : (i == 0 ? 0 : 1));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ int signum(int i);

    /*@ public normal_behavior
      @ ensures 0 <= \result && \result <= 32;
      @ ensures i == 0 ==> \result == 0;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ int bitCount(int i);

    /*@ public normal_behavior
      @ ensures \result == (a >= b ? a : b);
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ int max(int a, int b);

    /*@ public normal_behavior
      @ ensures \result == (a <= b ? a : b);
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ int min(int a, int b);

    public /*@ pure @*/ int hashCode();
}
