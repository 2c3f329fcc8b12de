// device_synchronize.cu: the document's way to wait for a child, which CUDA 12 removed from the
// device runtime. Compiled for sm_90 this must not compile: the test device_synchronize expects
// nvcc's "calling a __host__ function("cudaDeviceSynchronize") from a __global__
// function("waits_for_its_child") is not allowed".
__global__ void child(int* data) {
    data[threadIdx.x] += 1;
}

__global__ void waits_for_its_child(int* data) {
    if (threadIdx.x == 0) {
        child<<<1, 32>>>(data);
        cudaDeviceSynchronize();  // CDP1: wait for the child; gone in CDP2
    }
}
