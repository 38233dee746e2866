package java.lang;

public final class Boolean implements java.io.Serializable, java.lang.Comparable {

    private /*@ spec_public @*/ final boolean value;


    /*@ public normal_behavior
      @ ensures \result != null && \result.value == b;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.Boolean valueOf(boolean b);

    /*@ public normal_behavior
      @ ensures \result != null;
      @ ensures s == null ==> !\result.value;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.Boolean valueOf(/*@ nullable @*/ java.lang.String s);

    /*@ public normal_behavior
      @ ensures \result == value;
      @ assignable \nothing;
      @ accessible value;
      @*/
    public /*@ pure @*/ boolean booleanValue();

    /*@ public normal_behavior
      @ ensures s == null ==> !\result;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ boolean parseBoolean(/*@ nullable @*/ java.lang.String s);

    /*@ public normal_behavior
      @ ensures \result != null;
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ java.lang.String toString(boolean b);

    /*@ public normal_behavior
      @ ensures \result != null;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ java.lang.String toString();

    /*@ public normal_behavior
      @ ensures \result == (o instanceof java.lang.Boolean
      @                     && ((java.lang.Boolean) o).value == value);
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ boolean equals(/*@ nullable @*/ java.lang.Object o);

    /*@ public normal_behavior
      @ ensures \result == (x == y ? 0 : (x ? 1 : -1));
      @ assignable \nothing;
      @*/
    public static /*@ pure @*/ int compare(boolean x, boolean y);

    public /*@ pure @*/ int hashCode();
}
