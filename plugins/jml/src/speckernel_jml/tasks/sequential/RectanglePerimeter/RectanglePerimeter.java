class RectanglePerimeter {
    public static int perimeter(int width, int height) {
        int half = width + height;
        return half * 2;
    }
}
