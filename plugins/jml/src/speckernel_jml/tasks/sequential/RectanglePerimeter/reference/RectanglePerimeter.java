class RectanglePerimeter {
    /*@ public normal_behavior
      @ requires 0 <= width && width <= 100000000;
      @ requires 0 <= height && height <= 100000000;
      @ ensures \result == 2 * width + 2 * height;
      @ assignable \nothing;
      @*/
    public static int perimeter(int width, int height) {
        int half = width + height;
        return half * 2;
    }
}
