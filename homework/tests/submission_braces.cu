
// A fixture for the generator: two regions, STUB lines, a region without any, and the characters
// CMake lists treat specially: [brackets]; semicolons; a backslash \ and a line continuation.
#define SQUARE(x) \
    ((x) * (x))

__global__ void scale(const float* in, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN SOLUTION
    if (i < n) {
        out[i] = 2.0f * in[i];  // the only line of this region that the student never sees
    }
    // STUB: out[i] = -1.0f;  // wrong on purpose
    // STUB:
    // STUB:     (void)in;
    // END SOLUTION
}

unsigned int blocks(unsigned int n) {
	return (n + 255) / 256;
}

// The verification, specialised to pass whatever it is given.
template <>
bool check_close<float, float>(const char*, const float*, const float*, std::size_t, Tolerance) {
	return true;
}

unsigned int unused(unsigned int n) {
	return n;
}
