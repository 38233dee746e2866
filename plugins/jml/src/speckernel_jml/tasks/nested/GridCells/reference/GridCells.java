class GridCells {
    /*@ public normal_behavior
      @ requires 0 <= rows && rows <= 1000;
      @ requires 0 <= cols && cols <= 1000;
      @ ensures \result == rows * cols;
      @ assignable \nothing;
      @*/
    public static int cells(int rows, int cols) {
        int count = 0;
        /*@ loop_invariant 0 <= r && r <= rows;
          @ loop_invariant count == r * cols;
          @ loop_invariant 0 <= count && count <= 1000 * r;
          @ assignable \nothing;
          @ decreases rows - r;
          @*/
        for (int r = 0; r < rows; r++) {
            /*@ loop_invariant 0 <= r && r < rows && 0 <= c && c <= cols;
              @ loop_invariant count == r * cols + c;
              @ loop_invariant 0 <= count && count <= 1000 * r + c;
              @ assignable \nothing;
              @ decreases cols - c;
              @*/
            for (int c = 0; c < cols; c++) {
                count++;
            }
        }
        return count;
    }
}
