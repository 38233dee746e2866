class RotateLeftThree {
    public static void rotateLeftThree(int[] a) {
        int first = a[0];
        a[0] = a[1];
        a[1] = a[2];
        a[2] = first;
    }
}
