// A fixture for the generator: "solution" in lower or mixed case is prose, not a mark. The
// solutions are graded; we append solutions here; in the end, solution speed matters.
int end_solution = 0;  // a name, not a mark
int f() {
    // BEGIN SOLUTION
    return end_solution;  // Solutions may say so too
    // END SOLUTION
}
