// A fixture for the generator: "solution" in lower or mixed case is prose, not a mark. The
// solutions are graded; we append solutions here; in the end, solution speed matters.
int end_solution = 0;  // a name, not a mark
int f() {
    // >>>>>> your part: write it here, down to the <<<<<< line; the rest is fixed
    // TODO: write this part (exercise 1 of this file)
    // <<<<<< end of your part
}
