// two_file_kernels.cu: the kernels half of a two-file program (two_file_main.cu has main), as a
// reader who copies the chapter's kernels into a project splits one: the kernels and launchers of
// Figs 7.9 and 7.12 exactly as their files hold them (everything above CH07_KERNELS_ONLY, with
// conv_kernels.cuh; they make this file F_c's home), and the two launchers the other file calls.
#define CH07_KERNELS_ONLY
#include "../07_09_conv2d_constant_memory.cu"
#include "../07_12_conv2d_tiled.cu"

// The radius main uses; a reader picks theirs.
constexpr int kRadius = 2;

cudaError_t launch_fig_7_9(const float* N, float* P, int width, int height) {
    return convolution_2D_const_mem<kRadius>(N, P, width, height);
}

cudaError_t launch_fig_7_12(const float* N, float* P, int width, int height) {
    return convolution_tiled_2D_const_mem<kRadius>(N, P, width, height);
}
