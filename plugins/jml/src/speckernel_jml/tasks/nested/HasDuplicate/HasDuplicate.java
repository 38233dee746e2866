class HasDuplicate {
    public static boolean hasDuplicate(int[] a) {
        for (int i = 0; i < a.length; i++) {
            boolean repeated = false;
            for (int j = i + 1; j < a.length; j++) {
                if (a[i] == a[j]) {
                    repeated = true;
                }
            }
            if (repeated) {
                return true;
            }
        }
        return false;
    }
}
