int f() {
    // BEGIN SOLUTION
    return 1;
    // BEGIN SOLUTION
    // END SOLUTION
}
