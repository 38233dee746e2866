package java.util;

public class Collections {

    private Collections() {}

    /*@ public normal_behavior
      @ requires list != null;
      @ ensures list.seq.length == \old(list.seq.length);
      @ assignable list.seq;
      @*/
    public static void sort(java.util.List list);

    /*@ public normal_behavior
      @ requires list != null;
      @ ensures list.seq.length == \old(list.seq.length);
      @ assignable list.seq;
      @*/
    public static void reverse(java.util.List list);

    /*@ public normal_behavior
      @ requires c != null && c.seq.length > 0;
      @ ensures (\exists \bigint i; 0 <= i && i < c.seq.length; (java.lang.Object) c.seq[i] == \result);
      @ assignable \nothing;
      @*/
    public static /*@ pure nullable @*/ java.lang.Object max(java.util.Collection c);

    /*@ public normal_behavior
      @ requires c != null && c.seq.length > 0;
      @ ensures (\exists \bigint i; 0 <= i && i < c.seq.length; (java.lang.Object) c.seq[i] == \result);
      @ assignable \nothing;
      @*/
    public static /*@ pure nullable @*/ java.lang.Object min(java.util.Collection c);
}
