
// A fixture for the generator: two regions, STUB lines, a region without any, and the characters
// CMake lists treat specially: [brackets]; semicolons; a backslash \ and a line continuation.
#define SQUARE(x) \
    ((x) * (x))

__global__ void scale(const float* in, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;  // a } in a comment, a "}" in a string: no brace
    float x = 0.0f;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        x += in[i];
    }
    out[i] = x;
}

unsigned int blocks(unsigned int n) {   
	return n / 256 + (n % 256 ? 1 : 0);
}