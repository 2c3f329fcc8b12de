// not_home.cu: a kernel that reads F_c in a file that is not F_c's home (it does not define
// CH07_DEFINE_FILTERS). Compiled whole-program, this must not compile: F_c is not declared here,
// so the kernel cannot read a copy of F_c that nothing fills (all zeros, silently, when
// conv_kernels.cuh defined F_c in every file). The test compile_outside_home expects nvcc's
// "identifier "F_c" is undefined"; with -rdc=true the file compiles (F_c is extern).
#include "conv_kernels.cuh"

__global__ void reads_filter(float* out) {
    out[threadIdx.x] = F_c[0][threadIdx.x];
}
