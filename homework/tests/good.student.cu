
// A fixture for the generator: two regions, STUB lines, a region without any, and the characters
// CMake lists treat specially: [brackets]; semicolons; a backslash \ and a line continuation.
#define SQUARE(x) \
    ((x) * (x))

__global__ void scale(const float* in, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // >>>>>> your part: write it here, down to the <<<<<< line; the rest is fixed
    out[i] = -1.0f;  // wrong on purpose

        (void)in;
    // <<<<<< end of your part
}

unsigned int blocks(unsigned int n) {
	// >>>>>> your part: write it here, down to the <<<<<< line; the rest is fixed
	// TODO: write this part (exercise 2 of this file)
	// <<<<<< end of your part
}
