// compile_alone_tail.cuh: appended to a program's kernels and launchers by its compile_alone test
// (cmake/CompileAlone.cmake), which names the program with -DWARP_PROGRAM=1, 2 or 3. It
// instantiates every launcher template the program's main uses, so that each kernel is compiled
// for the GPU, not only parsed. 04's launcher is no template and needs none.
#if WARP_PROGRAM == 1
template cudaError_t find_peers<false>(const int*, unsigned int*, unsigned int);
template cudaError_t find_peers<true>(const int*, unsigned int*, unsigned int);
#elif WARP_PROGRAM == 2
template cudaError_t group_sums<float>(const int*, const float*, float*, unsigned int);
template cudaError_t group_sums<double>(const int*, const double*, double*, unsigned int);
#elif WARP_PROGRAM == 3
#define WARP_LAUNCHERS(T)                                                                    \
    template cudaError_t run_per_value<T, Atomic::kNative>(const Problem<T>&);               \
    template cudaError_t run_per_value<T, Atomic::kCas>(const Problem<T>&);                  \
    template cudaError_t run_shared_hash<T>(const Problem<T>&);                              \
    template cudaError_t run_warp<T, Search::kGetPeers, Atomic::kNative>(const Problem<T>&); \
    template cudaError_t run_warp<T, Search::kGetPeers, Atomic::kCas>(const Problem<T>&);    \
    template cudaError_t run_warp<T, Search::kMatchAny, Atomic::kNative>(const Problem<T>&); \
    template cudaError_t run_search<T, Search::kGetPeers>(const Problem<T>&);                \
    template cudaError_t run_search<T, Search::kMatchAny>(const Problem<T>&);                \
    template cudaError_t run_labeled_partition<T>(const Problem<T>&);                        \
    template cudaError_t run_masks_given<T, Atomic::kNative>(const Problem<T>&);             \
    template cudaError_t run_masks_given<T, Atomic::kCas>(const Problem<T>&);                \
    template cudaError_t run_segmented_scan<T, 4>(const Problem<T>&);                        \
    template cudaError_t run_segmented_scan<T, 8>(const Problem<T>&);
WARP_LAUNCHERS(float)
WARP_LAUNCHERS(double)
#endif
