int f() {
    // BEGIN SOLUTIONS
    return 1;
    // END SOLUTION
}
