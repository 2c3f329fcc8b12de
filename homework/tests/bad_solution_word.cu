int f() {
    // BEGIN SOLUTION
    return 1;  // the SOLUTION
    // END SOLUTION
}
