// pointer_to_shared.cu: a child grid given a pointer to its parent block's shared memory, which
// the child cannot dereference either (shared memory is private to the block). This compiles, and
// CUDA 13.0's nvcc says nothing about it: the characterization pointer_to_shared passes while no
// warning names shared memory, and fails on a toolkit that starts to warn.
__global__ void child(int* data) {
    data[threadIdx.x] += 1;
}

__global__ void passes_shared(int* out) {
    __shared__ int ours[32];
    ours[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) child<<<1, 32>>>(ours);
}
