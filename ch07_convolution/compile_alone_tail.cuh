// compile_alone_tail.cuh: appended to a figure's kernels and launchers by its compile_alone test
// (cmake/CompileAlone.cmake), which defines LAUNCH(in, out, n, op) as a call of the launchers on
// an n x n image (n x n x n in 3D, n elements in 1D) with the radius op. It instantiates them for
// every radius the programs run, so that each kernel is compiled for the GPU, not only parsed, and
// compiles the call that fills F_c (Fig 7.9's host side).
template <int R>
cudaError_t launch_alone(const float* in, float* out, int n) {
    return LAUNCH(in, out, n, R);
}
template cudaError_t launch_alone<1>(const float*, float*, int);
template cudaError_t launch_alone<2>(const float*, float*, int);
template cudaError_t launch_alone<3>(const float*, float*, int);
template cudaError_t launch_alone<4>(const float*, float*, int);
cudaError_t upload_alone(const float* weights, int r) {
    return ch07::upload_filter(weights, r);
}
