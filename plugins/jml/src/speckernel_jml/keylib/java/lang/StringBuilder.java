package java.lang;

/* The builder's characters are the ghost sequence `content`; each mutator says how it changes
 * (append of a char or String: documented exactly), and the conversions of other values say
 * only that characters were added. */
public final class StringBuilder implements java.io.Serializable {

    //@ public ghost \seq content;

    /*@ public normal_behavior
      @ ensures content == \seq_empty;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ StringBuilder();

    /*@ public normal_behavior
      @ ensures content == \seq_empty;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ StringBuilder(int capacity);

    /*@ public normal_behavior
      @ ensures content == \dl_strContent(s);
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ StringBuilder(java.lang.String s);

    /*@ public normal_behavior
      @ ensures \result == this;
      @ ensures content == \seq_concat(\old(content), \seq_singleton(c));
      @ assignable content;
      @*/
    public java.lang.StringBuilder append(char c);

    /*@ public normal_behavior
      @ requires s != null;
      @ ensures \result == this;
      @ ensures content == \seq_concat(\old(content), \dl_strContent(s));
      @ assignable content;
      @ also public normal_behavior
      @ requires s == null;
      @ ensures \result == this;
      @ ensures content.length == \old(content.length) + 4;
      @ assignable content;
      @*/
    public java.lang.StringBuilder append(/*@ nullable @*/ java.lang.String s);

    /*@ public normal_behavior
      @ ensures \result == this;
      @ ensures content.length > \old(content.length);
      @ assignable content;
      @*/
    public java.lang.StringBuilder append(int i);

    /*@ public normal_behavior
      @ ensures \result == this;
      @ ensures content.length > \old(content.length);
      @ assignable content;
      @*/
    public java.lang.StringBuilder append(long l);

    /*@ public normal_behavior
      @ ensures \result == this;
      @ ensures content.length > \old(content.length);
      @ assignable content;
      @*/
    public java.lang.StringBuilder append(boolean b);

    /*@ public normal_behavior
      @ ensures \result == this;
      @ ensures content.length > \old(content.length);
      @ assignable content;
      @*/
    public java.lang.StringBuilder append(double d);

    /*@ public normal_behavior
      @ ensures \result == this;
      @ ensures content.length >= \old(content.length);
      @ assignable content;
      @*/
    public java.lang.StringBuilder append(/*@ nullable @*/ java.lang.Object o);

    /*@ public normal_behavior
      @ ensures \result == this;
      @ ensures content.length == \old(content.length);
      @ assignable content;
      @*/
    public java.lang.StringBuilder reverse();

    /*@ public normal_behavior
      @ requires 0 <= offset && offset <= content.length;
      @ ensures \result == this;
      @ ensures content.length == \old(content.length) + 1;
      @ assignable content;
      @*/
    public java.lang.StringBuilder insert(int offset, char c);

    /*@ public normal_behavior
      @ requires 0 <= index && index < content.length;
      @ ensures \result == (char) content[index];
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ char charAt(int index);

    /*@ public normal_behavior
      @ requires 0 <= index && index < content.length;
      @ ensures content.length == \old(content.length);
      @ assignable content;
      @*/
    public void setCharAt(int index, char c);

    /*@ public normal_behavior
      @ requires 0 <= index && index < content.length;
      @ ensures content.length == \old(content.length) - 1;
      @ ensures \result == this;
      @ assignable content;
      @*/
    public java.lang.StringBuilder deleteCharAt(int index);

    /*@ public normal_behavior
      @ ensures \result == content.length;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ int length();

    /*@ public normal_behavior
      @ ensures \result != null && \dl_strContent(\result) == content;
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ java.lang.String toString();
}
