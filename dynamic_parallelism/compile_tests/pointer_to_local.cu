// pointer_to_local.cu: a child grid given a pointer to its parent thread's local memory, which
// the child cannot dereference (local memory is private to one thread). This compiles; the test
// pointer_to_local expects nvcc's warning "A pointer to local memory was stored into the parameter
// buffer ... Dereferencing this within the launch is undefined".
__global__ void child(int* data) {
    data[threadIdx.x] += 1;
}

__global__ void passes_local(const int* in) {
    int mine[32];  // local to this thread
    for (int i = 0; i < 32; ++i) mine[i] = in[i];
    if (threadIdx.x == 0) child<<<1, 32>>>(mine);
}
