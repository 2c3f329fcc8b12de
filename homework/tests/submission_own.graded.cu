
// A fixture for the generator: two regions, STUB lines, a region without any, and the characters
// CMake lists treat specially: [brackets]; semicolons; a backslash \ and a line continuation.
#define SQUARE(x) \
    ((x) * (x))

__global__ void scale(const float* in, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    out[i] = x + x;
}

unsigned int blocks(unsigned int n) {
	unsigned int b = n / 256;
	return n % 256 ? b + 1 : b;
}
