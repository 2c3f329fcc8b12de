int f() {
    // STUB: return 0;
    return 1;
}
