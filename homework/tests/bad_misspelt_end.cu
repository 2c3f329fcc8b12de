int f() {
    // BEGIN SOLUTION
    return 1;
    // end solution
}
