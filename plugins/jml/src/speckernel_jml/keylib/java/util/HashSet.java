package java.util;

/* A set's elements are the ghost sequence seq of java.util.Collection, without repetitions. */
public class HashSet implements java.util.Set {

    /*@ public normal_behavior
      @ ensures seq.length == 0;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ HashSet();

    /*@ public normal_behavior
      @ requires capacity >= 0;
      @ ensures seq.length == 0;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ HashSet(int capacity);

    /*@ public normal_behavior
      @ ensures seq.length <= c.seq.length;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ HashSet(java.util.Collection c);

    /*@ public normal_behavior
      @ ensures seq.length >= \old(seq.length) && seq.length <= \old(seq.length) + 1;
      @ ensures \result <==> seq.length == \old(seq.length) + 1;
      @ assignable seq;
      @*/
    public boolean add(/*@ nullable @*/ java.lang.Object o);

    /*@ public normal_behavior
      @ ensures \result ==> seq.length > 0;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ boolean contains(/*@ nullable @*/ java.lang.Object o);

    /*@ public normal_behavior
      @ ensures seq.length <= \old(seq.length) && seq.length >= \old(seq.length) - 1;
      @ ensures \result <==> seq.length == \old(seq.length) - 1;
      @ assignable seq;
      @*/
    public boolean remove(/*@ nullable @*/ java.lang.Object o);
}
