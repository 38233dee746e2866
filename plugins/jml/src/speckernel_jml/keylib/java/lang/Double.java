package java.lang;

public final class Double implements java.lang.Comparable {

    private /*@ spec_public @*/ final double value;


    /*@ public normal_behavior
      @ ensures \result == (val != val);
      @ assignable \strictly_nothing;
      @ accessible \nothing;
      @*/
    public static boolean isNaN(double val) {
        return val != val;
    }

    /*@ public normal_behavior
      @ ensures \result != null;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.Double valueOf(double d);

    /*@ public normal_behavior
      @ ensures \result == value;
      @ assignable \nothing;
      @ accessible value;
      @*/
    public /*@ pure @*/ double doubleValue();

    /*@ public normal_behavior
      @ ensures \result != null;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.String toString(double d);

    /*@ public behavior
      @ ensures true;
      @ signals_only java.lang.NumberFormatException, java.lang.NullPointerException;
      @ assignable \nothing;
      @*/
    public static double parseDouble(/*@ nullable @*/ java.lang.String s)
        throws java.lang.NumberFormatException;

    public /*@ pure @*/ int hashCode();

    /* Model methods KeY's own library (java.util.Arrays) names in its contracts: whether a
     * value is NaN, and value identity with every NaN the same. */

    /*@ public model_behaviour
      @ requires true;
      @ accessible \nothing;
      @ static model boolean _isNaN(double d) {
      @     return d != d;
      @ }
      @*/

    /*@ public model_behaviour
      @ requires true;
      @ accessible \nothing;
      @ static model boolean _isSame(double x, double y) {
      @     return Double._isNaN(x) ? Double._isNaN(y) : x == y;
      @ }
      @*/
}
