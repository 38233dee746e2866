package java.util;

/* A map's keys and values are the ghost sequences key_seq and value_seq, entry i mapping
 * key_seq[i] to value_seq[i] (the names KeY's own LinkedHashMap uses). Queries and updates are
 * specified by size and by "no exception"; which key maps to which value is not stated. */
public interface Map {

    //@ public instance ghost \seq key_seq;
    //@ public instance ghost \seq value_seq;

    /*@ public normal_behavior
      @ ensures \result == key_seq.length;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ int size();

    /*@ public normal_behavior
      @ ensures \result == (key_seq.length == 0);
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ boolean isEmpty();

    /*@ public normal_behavior
      @ ensures \result ==> key_seq.length > 0;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ boolean containsKey(/*@ nullable @*/ java.lang.Object key);

    /*@ public normal_behavior
      @ ensures \result ==> value_seq.length > 0;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ boolean containsValue(/*@ nullable @*/ java.lang.Object value);

    /*@ public normal_behavior
      @ assignable \nothing;
      @*/
    public /*@ pure nullable @*/ java.lang.Object get(/*@ nullable @*/ java.lang.Object key);

    /*@ public normal_behavior
      @ assignable \nothing;
      @*/
    public /*@ pure nullable @*/ java.lang.Object getOrDefault(
        /*@ nullable @*/ java.lang.Object key, /*@ nullable @*/ java.lang.Object otherwise);

    /*@ public normal_behavior
      @ ensures key_seq.length >= \old(key_seq.length);
      @ ensures key_seq.length <= \old(key_seq.length) + 1;
      @ ensures key_seq.length == value_seq.length;
      @ assignable key_seq, value_seq;
      @*/
    public /*@ nullable @*/ java.lang.Object put(/*@ nullable @*/ java.lang.Object key,
                                                  /*@ nullable @*/ java.lang.Object value);

    /*@ public normal_behavior
      @ ensures key_seq.length <= \old(key_seq.length);
      @ ensures key_seq.length == value_seq.length;
      @ assignable key_seq, value_seq;
      @*/
    public /*@ nullable @*/ java.lang.Object remove(/*@ nullable @*/ java.lang.Object key);

    /*@ public normal_behavior
      @ ensures key_seq.length == 0 && value_seq.length == 0;
      @ assignable key_seq, value_seq;
      @*/
    public void clear();

    /*@ public normal_behavior
      @ ensures \result != null && \result.seq.length == key_seq.length;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ java.util.Set keySet();

    /*@ public normal_behavior
      @ ensures \result != null && \result.seq.length == value_seq.length;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ java.util.Collection values();

    /*@ public normal_behavior
      @ ensures \result != null && \result.seq.length == key_seq.length;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ java.util.Set entrySet();

    public /*@ pure @*/ boolean equals(/*@ nullable @*/ java.lang.Object o);

    public /*@ pure @*/ int hashCode();

    public static interface Entry {
        /*@ public normal_behavior
          @ assignable \nothing;
          @*/
        public /*@ pure nullable @*/ java.lang.Object getKey();

        /*@ public normal_behavior
          @ assignable \nothing;
          @*/
        public /*@ pure nullable @*/ java.lang.Object getValue();
    }
}
