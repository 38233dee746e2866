package java.util;

public class EmptyStackException extends java.lang.RuntimeException {

    /*@ public normal_behavior
      @ assignable \nothing;
      @*/
    public /*@ pure @*/ EmptyStackException();
}
