package java.util;

public class HashMap implements java.util.Map {

    /*@ public normal_behavior
      @ ensures key_seq.length == 0 && value_seq.length == 0;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ HashMap();

    /*@ public normal_behavior
      @ requires capacity >= 0;
      @ ensures key_seq.length == 0 && value_seq.length == 0;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ HashMap(int capacity);

    /*@ public normal_behavior
      @ ensures key_seq.length == m.key_seq.length && value_seq.length == m.value_seq.length;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ HashMap(java.util.Map m);
}
