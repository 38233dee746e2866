class TriangleKind {
    /*@ public normal_behavior
      @ requires 1 <= a && a <= 1000000000;
      @ requires 1 <= b && b <= 1000000000;
      @ requires 1 <= c && c <= 1000000000;
      @ ensures (a + b <= c || a + c <= b || b + c <= a) <==> \result == 0;
      @ ensures \result == 1 <==> (a + b > c && a == b && b == c);
      @ ensures \result == 2 <==> (a + b > c && a + c > b && b + c > a
      @                             && (a == b || b == c || a == c) && !(a == b && b == c));
      @ ensures \result == 3 <==> (a + b > c && a + c > b && b + c > a
      @                             && a != b && b != c && a != c);
      @ assignable \nothing;
      @*/
    public static int kind(int a, int b, int c) {
        if (a + b <= c || a + c <= b || b + c <= a) {
            return 0;
        }
        if (a == b && b == c) {
            return 1;
        }
        if (a == b || b == c || a == c) {
            return 2;
        }
        return 3;
    }
}
