class RotateLeftThree {
    /*@ public normal_behavior
      @ requires a != null && a.length == 3;
      @ ensures a[0] == \old(a[1]) && a[1] == \old(a[2]) && a[2] == \old(a[0]);
      @ assignable a[*];
      @*/
    public static void rotateLeftThree(int[] a) {
        int first = a[0];
        a[0] = a[1];
        a[1] = a[2];
        a[2] = first;
    }
}
