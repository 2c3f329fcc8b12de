// compile_alone_tail.cuh: appended to a figure's kernel and launcher by its compile_alone test
// (cmake/CompileAlone.cmake), which defines LAUNCH(in, out, n, op) as a call of that launcher. It
// instantiates the launcher for every operator the programs run, so that each kernel is compiled
// for the GPU, not only parsed.
template <class T, class Op>
cudaError_t launch_alone(T* in, T* out, unsigned int n, Op op) {
    return LAUNCH(in, out, n, op);
}
template cudaError_t launch_alone(float*, float*, unsigned int, ch10::Sum<float>);
template cudaError_t launch_alone(unsigned int*, unsigned int*, unsigned int,
                                  ch10::Sum<unsigned int>);
template cudaError_t launch_alone(float*, float*, unsigned int, ch10::Max);
