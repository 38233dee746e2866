class MultiplyByAdding {
    public static int multiply(int x, int y) {
        int product = 0;
        for (int i = 0; i < y; i++) {
            product += x;
        }
        return product;
    }
}
