// stream_synchronize.cu: waiting on the device for a stream or an event, which the device runtime
// does not offer (only a tail launch orders code after work). Compiled for sm_90 this must not
// compile: the test stream_synchronize expects nvcc's "calling a __host__ function(...) from a
// __global__ function(...) is not allowed" for cudaStreamSynchronize, cudaStreamQuery,
// cudaEventSynchronize and cudaEventQuery, each named.
__global__ void child(int* data) {
    data[threadIdx.x] += 1;
}

__global__ void waits_for_a_stream(int* data) {
    if (threadIdx.x != 0) return;
    cudaStream_t stream;
    cudaEvent_t done;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    child<<<1, 32, 0, stream>>>(data);
    cudaEventRecord(done, stream);
    cudaStreamSynchronize(stream);  // the host's way to wait for a stream: not on the device
    cudaStreamQuery(stream);        // nor to ask whether it is done
    cudaEventSynchronize(done);     // nor to wait for an event
    cudaEventQuery(done);           // nor to ask whether it happened
}
