int f() {
    // BEGIN SOLUTION
    return 1;
    // STUB: return 0;
}
