package java.util;

/* The stack's elements are the ghost sequence seq of java.util.Collection, bottom first. */
public class Stack implements java.util.List {

    /*@ public normal_behavior
      @ ensures seq.length == 0;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ Stack();

    /*@ public normal_behavior
      @ ensures seq == \seq_concat(\old(seq), \seq_singleton(item));
      @ ensures \result == item;
      @ assignable seq;
      @*/
    public /*@ nullable @*/ java.lang.Object push(/*@ nullable @*/ java.lang.Object item);

    /*@ public normal_behavior
      @ requires seq.length > 0;
      @ ensures seq.length == \old(seq.length) - 1;
      @ ensures \result == (java.lang.Object) \old(seq)[\old(seq).length - 1];
      @ assignable seq;
      @ also public exceptional_behavior
      @ requires seq.length == 0;
      @ signals_only java.util.EmptyStackException;
      @ assignable \nothing;
      @*/
    public /*@ nullable @*/ java.lang.Object pop();

    /*@ public normal_behavior
      @ requires seq.length > 0;
      @ ensures \result == (java.lang.Object) seq[seq.length - 1];
      @ assignable \nothing;
      @ also public exceptional_behavior
      @ requires seq.length == 0;
      @ signals_only java.util.EmptyStackException;
      @ assignable \nothing;
      @*/
    public /*@ pure nullable @*/ java.lang.Object peek();

    /*@ public normal_behavior
      @ ensures \result == (seq.length == 0);
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ boolean empty();
}
