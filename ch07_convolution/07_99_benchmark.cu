// 07_99_benchmark: beyond the book: every 2D kernel of the chapter on the same image, against the
// roofline floor and the libraries a user would pick instead.
//
// For each radius (default 1..4; --radius for one) on one random W x H fp32 image (default
// 8192 x 8192) it runs Fig 7.7 (basic), Fig 7.9 (constant memory), Fig 7.9's two changes one at a
// time (Fig 7.7 with its radius at compile time, Fig 7.9 with its radius at run time), Fig 7.12
// (tiled), Fig 7.15 (cached halo), 07_ex2 (output-tiled), 07_91 (register-tiled), 07_92 (register
// window, reuse from the caches), 07_93 (float4 strips: 8 rows and 64 registers per thread; also 8
// rows with 80, 4 rows with 64 and 16 rows with 128), 07_94 (strips as an FMA pipeline: 4 columns
// x 5 rows of outputs per thread in 72 registers; also 4x4 in 64, 4x6 in 80 and 4x8 in 128), and,
// where the build found them, cuDNN
// (cudnnConvolutionForward: one image, one channel, zero padding r, cross-correlation as in the
// book, CUDNN_FMA_MATH so that it computes in fp32 like the kernels; two rows from
// cudnnFindConvolutionForwardAlgorithm: "cuDNN direct sum", its fastest direct-sum algorithm, and
// "cuDNN fastest", its fastest algorithm of all, FFT and Winograd included, see CudnnConv) and NPP
// (nppiFilter_32f_C1R_Ctx on a zero-padded copy of the image made once beforehand, see NppConv).
// Every one is checked against the sequential convolution at every pixel before it is timed
// (median of --reps, L2 flushed before every run): exactly, but NPP away from the edge and an FFT
// or Winograd "cuDNN fastest" within a tolerance derived at CudnnConv::tolerance().
//
// The roofline floor of a radius is the larger of
//   memory:  the image read once and the output written once (8 bytes per pixel) at the copy
//            bandwidth measured in this run (cudaMemcpy device to device, or a float4 copy
//            kernel, whichever is faster; its bytes are also read once and written once)
//   compute: 2 (2r+1)^2 FLOP per pixel at the fp32 FMA peak (SMs x FP32 lanes per SM x 2 x the
//            SM clock the device reports)
// Columns: ms, Gpixel/s, GB/s (8 bytes per pixel), GFLOP/s, % of the floor (floor time / time),
// and x cuDNN against each cuDNN row (its time / time, above 1 is faster): xcuDNN-d against "cuDNN
// direct sum", xcuDNN-f against "cuDNN fastest". --csv writes the same as CSV
// (speed_vs_cudnn_direct, speed_vs_cudnn_fastest; algo names cuDNN's algorithm; ms_min and ms_max
// the fastest and slowest of the --reps timed runs, whose median is ms); plot_benchmark.py turns
// that into the README table and the plot. Which chapter kernel is fastest differs by radius (the
// memory floor at small r, the FMA floor at large r): the last lines name it for each radius.
//
// Build: cmake --build build --target 07_99_benchmark
// Run:   build/bin/07_99_benchmark [--n 8192 | --width W --height H] [--radius 1..4] [--reps 20]
//        [--libraries on|off] [--csv > results.csv]
#define CH07_KERNELS_ONLY  // each figure's file brings its kernel and launcher, not its main
#include "07_07_conv2d_basic.cu"
#include "07_09_conv2d_constant_memory.cu"
#include "07_12_conv2d_tiled.cu"
#include "07_15_conv2d_tiled_cached_halo.cu"
#include "07_91_conv2d_register_tiled.cu"
#include "07_92_conv2d_register_cached.cu"
#include "07_93_conv2d_strip_float4.cu"
#include "07_94_conv2d_strip_fma.cu"
#include "07_ex2_conv2d_output_tiled.cu"
#include "conv.cuh"

#ifdef CH07_HAVE_CUDNN
#include <cudnn.h>
#endif
#ifdef CH07_HAVE_NPP
#include <nppi_filtering_functions.h>
#endif

#include <algorithm>
#include <memory>

#ifdef CH07_HAVE_CUDNN
#define CUDNN_CHECK(call)                                                                     \
    do {                                                                                      \
        const cudnnStatus_t status_ = (call);                                                 \
        if (status_ != CUDNN_STATUS_SUCCESS) {                                                \
            std::fprintf(stderr, "cuDNN error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                         cudnnGetErrorString(status_));                                       \
            std::exit(common::kExitWrong);                                                    \
        }                                                                                     \
    } while (0)

// One forward convolution of a 1 x 1 x H x W image by a 1 x 1 x (2r+1) x (2r+1) filter, padding r:
// the book's convolution with ghost cells 0. cudnnFindConvolutionForwardAlgorithm times every
// algorithm once; two of them become rows, both computing in fp32 (CUDNN_FMA_MATH, as the kernels
// do: TF32 tensor cores would be a lower-precision computation):
//   "cuDNN direct sum"  the fastest algorithm that sums the products directly (implicit GEMM,
//                       precomputed implicit GEMM, GEMM, direct), checked exactly like the kernels;
//   "cuDNN fastest"     the fastest algorithm of all, what a user calling cuDNN gets, FFT and
//                       Winograd included. Those round in a transformed domain, so their sums
//                       are not the direct sum's bits: they are checked with a tolerance,
//                       derived at tolerance(); a direct-sum one is checked exactly.
// The two are the same algorithm where the fastest is a direct sum.
class CudnnConv {
  public:
    struct Choice {
        cudnnConvolutionFwdAlgo_t algo{};
        void* workspace = nullptr;
        std::size_t workspace_bytes = 0;
        bool ok = false;
    };

    explicit CudnnConv(const ch07::Conv2dRunner& run) : run_(run) {
        const int dim = ch07::filter_dim(run.radius());
        CUDNN_CHECK(cudnnCreate(&handle_));
        CUDNN_CHECK(cudnnCreateTensorDescriptor(&image_));
        CUDNN_CHECK(cudnnSetTensor4dDescriptor(image_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1,
                                               run.height(), run.width()));
        CUDNN_CHECK(cudnnCreateFilterDescriptor(&filter_));
        CUDNN_CHECK(cudnnSetFilter4dDescriptor(filter_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1,
                                               dim, dim));
        CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv_));
        CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv_, run.radius(), run.radius(), 1, 1, 1, 1,
                                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        CUDNN_CHECK(cudnnSetConvolutionMathType(conv_, CUDNN_FMA_MATH));
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int found = 0;
        CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithm(handle_, image_, filter_, conv_, image_,
                                                         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found,
                                                         perf));
        direct_ = pick(perf, found, true, nullptr);
        fastest_ = pick(perf, found, false, &direct_);  // shares direct_'s workspace if the same
    }
    ~CudnnConv() {
        if (fastest_.workspace != direct_.workspace) cudaFree(fastest_.workspace);
        cudaFree(direct_.workspace);
        cudnnDestroyConvolutionDescriptor(conv_);
        cudnnDestroyFilterDescriptor(filter_);
        cudnnDestroyTensorDescriptor(image_);
        cudnnDestroy(handle_);
    }
    const Choice& direct() const { return direct_; }
    const Choice& fastest() const { return fastest_; }
    void run(const Choice& c) const {
        const float one = 1.0f, zero = 0.0f;
        CUDNN_CHECK(cudnnConvolutionForward(handle_, &one, image_, run_.input(), filter_,
                                            run_.filter(), conv_, c.algo, c.workspace,
                                            c.workspace_bytes, &zero, image_, run_.output()));
    }

    static bool direct_sum(cudnnConvolutionFwdAlgo_t a) {
        return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
               a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
               a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
    }
    static std::string algo_name(cudnnConvolutionFwdAlgo_t a) {
        switch (a) {
            case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
                return "IMPLICIT_GEMM";
            case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
                return "IMPLICIT_PRECOMP_GEMM";
            case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
                return "GEMM";
            case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
                return "DIRECT";
            case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
                return "FFT";
            case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
                return "FFT_TILING";
            case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
                return "WINOGRAD";
            case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
                return "WINOGRAD_NONFUSED";
            default:
                return "algo " + std::to_string(int(a));
        }
    }

    // The check of "cuDNN fastest" when it is FFT or Winograd. Those transform a tile of the
    // input and the filter, multiply, and transform back, rounding in fp32 (unit roundoff
    // u = 2^-24) at every step, so an output's error is bounded by the magnitudes in its tile, not
    // by its own terms. For an FFT of L points the bound is normwise, about
    // u log2(L) ||x_tile||_2 ||f||_2 (times a small constant); cuDNN's FFT takes tiles of at most
    // 256 x 256 (its documented limit for ALGO_FFT; FFT_TILING uses 32 x 32), and |x| <= 1 here
    // (conv.h), so ||x_tile||_2 <= 256, ||f||_2 <= sum|f| and the bound is about
    // 16 * 256 u sum|f| = 2^-12 sum|f|. Winograd's error grows with the norms of its transform
    // matrices (entries up to 8 for F(4x4,3x3)): by an estimate of ours, a factor of 10^2..10^3
    // over one rounding of the tile's magnitudes, below 2^-14 sum|f|. The tolerance is 2^-10 sum|f|
    // for every pixel, 4 times the FFT estimate. It still fails a flipped filter, a shifted window
    // or a wrong border: those change outputs by whole products f x, typically 1/4 each, against
    // a tolerance of 2^-10 sum|f| (0.004 to 0.04 for these random filters). NaN and Inf fail.
    common::Tolerance tolerance(const Choice& c) const {
        if (direct_sum(c.algo)) return {};  // exact, as the kernels
        double sum_abs_f = 0.0;
        for (float f : run_.host_filter()) sum_abs_f += std::fabs(f);
        return {std::ldexp(sum_abs_f, -10), 0.0};
    }

  private:
    // The first (fastest) algorithm that ran, in fp32 FMA, of the kind asked for, whose workspace
    // can be allocated (an im2col GEMM or an FFT can ask for gigabytes; one that does not fit is
    // passed over, and said so). `same`, when it is that algorithm, is returned as it is.
    static Choice pick(const cudnnConvolutionFwdAlgoPerf_t* perf, int found, bool direct_only,
                       const Choice* same) {
        Choice c;
        for (int i = 0; i < found; ++i) {
            if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].mathType != CUDNN_FMA_MATH ||
                (direct_only && !direct_sum(perf[i].algo)))
                continue;
            if (same != nullptr && same->ok && same->algo == perf[i].algo) return *same;
            c.algo = perf[i].algo;
            c.workspace_bytes = perf[i].memory;
            if (c.workspace_bytes > 0 &&
                cudaMalloc(&c.workspace, c.workspace_bytes) != cudaSuccess) {
                (void)cudaGetLastError();  // out of memory is not sticky: clear it, try the next
                std::fprintf(stderr, "cuDNN %s passed over: its %zu-byte workspace does not fit\n",
                             algo_name(c.algo).c_str(), c.workspace_bytes);
                c.workspace = nullptr;
                continue;
            }
            c.ok = true;
            return c;
        }
        return c;
    }

    const ch07::Conv2dRunner& run_;
    cudnnHandle_t handle_{};
    cudnnTensorDescriptor_t image_{};
    cudnnFilterDescriptor_t filter_{};
    cudnnConvolutionDescriptor_t conv_{};
    Choice direct_, fastest_;
};
#endif

#ifdef CH07_HAVE_NPP
// nppiFilter_32f_C1R_Ctx runs on a copy of the image with kMargin zero rows and columns around it
// (the ghost cells, stored), the ROI being the W x H interior. NPP's filter reads the neighbourhood
// of every ROI pixel through pSrc and its step, and nothing keeps it inside an allocation but the
// caller: with the zero-padded image itself as the ROI, the window of the first pixel would begin
// r rows and columns before the allocation (at 8192 x 8192 an illegal address; at small sizes a
// read landing unseen in another allocation, which the memcheck_libraries test would catch). The
// margin is 32 floats, not r: any read NPP makes up to 32 columns or rows beyond the window stays
// inside the copy, and every row and pSrc start on a 128-byte boundary, as nppiMalloc would give.
// The output is the W x H image itself (step W floats), of which NPP writes the ROI only. The
// coefficients are passed reversed, as NPP's documentation asks (it computes a true convolution),
// with the anchor at the centre (r, r).
// NPP's 3x3 and 5x5 paths do not read the zeros around the ROI: within r of the image's edge their
// results differ from the zero-padded reference, so NPP is checked exactly on the interior only,
// and verify_interior() counts the ring's mismatches and compares them with two other border rules
// (RESULTS.md gives what it found).
class NppConv {
  public:
    static constexpr int kMargin = 32;

    explicit NppConv(const ch07::Conv2dRunner& run) : run_(run) {
        padded_width_ = run.width() + 2 * kMargin;
        const std::size_t padded_pixels = std::size_t(padded_width_) * (run.height() + 2 * kMargin);
        padded_ = std::make_unique<common::DeviceBuffer<float>>(padded_pixels);
        CUDA_CHECK(cudaMemset(padded_->get(), 0, padded_pixels * sizeof(float)));
        CUDA_CHECK(cudaMemcpy2D(interior(), padded_width_ * sizeof(float), run.input(),
                                run.width() * sizeof(float), run.width() * sizeof(float),
                                run.height(), cudaMemcpyDeviceToDevice));
        std::vector<float> k = run.host_filter();
        std::reverse(k.begin(), k.end());
        kernel_ = std::make_unique<common::DeviceBuffer<float>>(k);
        ctx_.hStream = 0;
        CUDA_CHECK(cudaGetDevice(&ctx_.nCudaDeviceId));
        const int dev = ctx_.nCudaDeviceId;
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx_.nMultiProcessorCount,
                                          cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx_.nMaxThreadsPerMultiProcessor,
                                          cudaDevAttrMaxThreadsPerMultiProcessor, dev));
        CUDA_CHECK(
            cudaDeviceGetAttribute(&ctx_.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, dev));
        int smem = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev));
        ctx_.nSharedMemPerBlock = smem;
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx_.nCudaDevAttrComputeCapabilityMajor,
                                          cudaDevAttrComputeCapabilityMajor, dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx_.nCudaDevAttrComputeCapabilityMinor,
                                          cudaDevAttrComputeCapabilityMinor, dev));
        ctx_.nStreamFlags = 0;
    }
    void run() const {
        const int r = run_.radius(), dim = ch07::filter_dim(r);
        const NppStatus status = nppiFilter_32f_C1R_Ctx(
            interior(), padded_width_ * sizeof(float), run_.output(), run_.width() * sizeof(float),
            NppiSize{run_.width(), run_.height()}, kernel_->get(), NppiSize{dim, dim},
            NppiPoint{r, r}, ctx_);
        if (status != NPP_SUCCESS) {
            std::fprintf(stderr, "nppiFilter_32f_C1R_Ctx failed: NppStatus %d\n", int(status));
            std::exit(common::kExitWrong);
        }
    }

  private:
    float* interior() const {
        return padded_->get() + std::size_t(kMargin) * padded_width_ + kMargin;
    }

    const ch07::Conv2dRunner& run_;
    int padded_width_ = 0;
    std::unique_ptr<common::DeviceBuffer<float>> padded_, kernel_;
    NppStreamContext ctx_{};
};
#endif

// A library's check (07_99 only). in_interior: at least r from every edge.
bool in_interior(const ch07::Conv2dRunner& run, int x, int y) {
    const int r = run.radius();
    return y >= r && y < run.height() - r && x >= r && x < run.width() - r;
}

// The largest |error| of got, over every pixel or (interior_only) the interior; NaN is not counted
// here (the check itself fails it).
double largest_error(const ch07::Conv2dRunner& run, const std::vector<float>& got,
                     bool interior_only) {
    double largest = 0.0;
    for (std::size_t i = 0; i < run.pixels(); ++i)
        if (!interior_only || in_interior(run, int(i % run.width()), int(i / run.width())))
            largest = std::max(largest, std::fabs(double(got[i]) - run.reference()[i]));
    return largest;
}

// NPP's check: the interior against the reference (exactly, or within tol); the ring within r of
// the edge is not counted but reported: how many of its pixels differ from the zero-padded
// reference, and how many of those equal the sum with the image's edge pixels replicated outward
// (index -k reads element 0, as CUDA's clamp addressing would) or mirrored (index -k reads element
// k): which border rule the library applied, if either. The interior is tested on the host's
// cores, row by row; check_at's report on a copy of it is made only where it fails.
bool check_interior(const ch07::Conv2dRunner& run, const std::string& what,
                    const std::vector<float>& got, common::Tolerance tol) {
    const int w = run.width(), h = run.height(), r = run.radius(), dim = ch07::filter_dim(r);
    const std::vector<float>& f = run.host_filter();
    const std::vector<double>& want = run.reference();
    std::vector<float> in;  // the input, read back for the first ring pixel that differs
    auto clamp = [](int i, int n) { return std::min(std::max(i, 0), n - 1); };
    auto mirror = [](int i, int n) {
        if (n == 1) return 0;
        while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
        return i;
    };
    std::size_t ring = 0, wrong = 0, replicated = 0, mirrored = 0;
    std::string first;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (in_interior(run, x, y)) {
                x = w - r - 1;  // on to the row's right edge
                continue;
            }
            const std::size_t i = std::size_t(y) * w + x;
            ++ring;
            if (double(got[i]) == want[i]) continue;
            ++wrong;
            if (in.empty()) in = run.host_input();
            double rep = 0.0, mir = 0.0;
            for (int fy = 0; fy < dim; ++fy)
                for (int fx = 0; fx < dim; ++fx) {
                    const double fw = f[fy * dim + fx];
                    const int iy = y - r + fy, ix = x - r + fx;
                    rep += fw * in[std::size_t(clamp(iy, h)) * w + clamp(ix, w)];
                    mir += fw * in[std::size_t(mirror(iy, h)) * w + mirror(ix, w)];
                }
            replicated += double(got[i]) == rep;
            mirrored += double(got[i]) == mir;
            if (first.empty()) {
                char text[160];
                std::snprintf(text, sizeof text,
                              ": got %.9g, zero-padded %.9g, replicated %.9g, mirrored %.9g",
                              got[i], want[i], rep, mir);
                first = "first at " + ch07::xy(i, w) + text;
            }
        }
    const std::string name = run.describe(what);
    std::fprintf(stderr,
                 "%s: %zu of the %zu pixels within r of the edge differ from the zero-padded "
                 "reference (not counted); of those, %zu equal the sum with the edge replicated "
                 "outward, %zu with it mirrored%s%s\n",
                 name.c_str(), wrong, ring, replicated, mirrored, first.empty() ? "" : "; ",
                 first.c_str());
    const int inner_width = std::max(0, w - 2 * r), inner_height = std::max(0, h - 2 * r);
    std::atomic<bool> interior_wrong{false};
    ch07::parallel_rows(inner_height, [&](std::int64_t y0, std::int64_t y1) {
        bool ok = true;
        for (std::int64_t y = y0; y < y1; ++y) {
            const std::size_t row = std::size_t(y + r) * w + r;
            for (int x = 0; x < inner_width; ++x)
                ok &= ch07::close_enough(got[row + x], want[row + x], tol);
        }
        if (!ok) interior_wrong.store(true, std::memory_order_relaxed);
    });
    if (!interior_wrong.load(std::memory_order_relaxed)) return true;
    std::vector<float> got_inner;
    std::vector<double> want_inner;
    for (int y = r; y < h - r; ++y) {
        const std::size_t row = std::size_t(y) * w + r;
        got_inner.insert(got_inner.end(), got.begin() + row, got.begin() + row + inner_width);
        want_inner.insert(want_inner.end(), want.begin() + row, want.begin() + row + inner_width);
    }
    return ch07::check_at(
        name + " interior", got_inner.data(), want_inner.data(), got_inner.size(), tol,
        [&](std::size_t i) { return ch07::xy(i, std::max(1, inner_width), r, r); });
}

// The image read once and written once, as fast as this GPU copies.
__global__ void copy_float4_kernel(const float4* __restrict__ in, float4* __restrict__ out,
                                   std::size_t n4) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n4;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

// GB/s counting the bytes read and the bytes written.
double copy_bandwidth(const common::Device& dev, std::int64_t reps, std::size_t pixels) {
    const std::size_t n4 = pixels / 4;
    common::DeviceBuffer<float4> a(n4), b(n4);
    CUDA_CHECK(cudaMemset(a.get(), 0, n4 * sizeof(float4)));
    common::Timer timer(dev, reps);
    const double memcpy_ms = timer.median_ms([&] {
        CUDA_CHECK(
            cudaMemcpyAsync(b.get(), a.get(), n4 * sizeof(float4), cudaMemcpyDeviceToDevice));
    });
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_float4_kernel, 256, 0));
    const double kernel_ms = timer.median_ms([&] {
        copy_float4_kernel<<<per_sm * dev.sm_count, 256>>>(a.get(), b.get(), n4);
        CUDA_CHECK_LAUNCH();
    });
    return 2.0 * n4 * sizeof(float4) / (std::min(memcpy_ms, kernel_ms) * 1e6);
}

// FP32 lanes per SM: fp32 fused multiply-adds per clock per SM. 5.x to 7.x as the CUDA C++
// Programming Guide's table of arithmetic instruction throughput gives them ("32-bit floating-point
// add, multiply, multiply-add", results per clock cycle per multiprocessor); every value, 8.x to
// 12.x included, as NVIDIA's cuda-samples give them (_ConvertSMVer2Cores, Common/helper_cuda.h).
// A compute capability newer than the table counts 128, as every one since 8.6 has.
int fp32_lanes_per_sm(int cc_major, int cc_minor) {
    switch (cc_major) {
        case 5:
            return 128;  // Maxwell
        case 6:
            return cc_minor == 0 ? 64 : 128;  // P100 64; the GeForce and Jetson Pascals 128
        case 7:
            return 64;  // Volta, Turing
        case 8:
            return cc_minor == 0 ? 64 : 128;  // A100 64; 8.6, 8.7, 8.9 128
        default:
            return 128;  // 9.0 (H100, H200), 10.x, 12.x
    }
}

double fp32_peak_gflops(const common::Device& dev) {
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev.id));
    return dev.sm_count * fp32_lanes_per_sm(dev.cc_major, dev.cc_minor) * 2.0 * clock_khz * 1e3 /
           1e9;
}

// Fig 7.9's speed-up taken apart. Fig 7.9 changes two things at once from Fig 7.7: the weights
// come from the __constant__ F_c, through the constant cache (LDC), instead of through the pointer
// F and L1 (LDG), and the radius is known when the kernel is compiled, so that both loops unroll
// and every weight's address and every offset into N is a constant. Each kernel below makes one of
// the two changes alone, so that the four rows, side by side, tell how much time each change saves
// (RESULTS.md, "Fig 7.9 against Fig 7.7").

// Fig 7.7 with FILTER_RADIUS at compile time: the loops unroll, the weights still come through F.
template <int FILTER_RADIUS>
__global__ void basic_kernel_compile_time_r(const float* N, const float* F, float* P, int width,
                                            int height) {
    int outCol = blockIdx.x * blockDim.x + threadIdx.x;
    int outRow = blockIdx.y * blockDim.y + threadIdx.y;
    if (outRow >= height || outCol >= width) return;
    float Pvalue = 0.0f;
    for (int fRow = 0; fRow < 2 * FILTER_RADIUS + 1; fRow++) {
        for (int fCol = 0; fCol < 2 * FILTER_RADIUS + 1; fCol++) {
            int inRow = outRow - FILTER_RADIUS + fRow;
            int inCol = outCol - FILTER_RADIUS + fCol;
            if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                Pvalue += F[fRow * (2 * FILTER_RADIUS + 1) + fCol] * N[inRow * width + inCol];
            }
        }
    }
    P[outRow * width + outCol] = Pvalue;
}

// Fig 7.9 with the radius r at run time: the weights come from F_c, the loops stay loops.
__global__ void const_mem_kernel_run_time_r(const float* N, float* P, int r, int width,
                                            int height) {
    int outCol = blockIdx.x * blockDim.x + threadIdx.x;
    int outRow = blockIdx.y * blockDim.y + threadIdx.y;
    if (outRow >= height || outCol >= width) return;
    float Pvalue = 0.0f;
    for (int fRow = 0; fRow < 2 * r + 1; fRow++) {
        for (int fCol = 0; fCol < 2 * r + 1; fCol++) {
            int inRow = outRow - r + fRow;
            int inCol = outCol - r + fCol;
            if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                Pvalue += F_c[fRow][fCol] * N[inRow * width + inCol];
            }
        }
    }
    P[outRow * width + outCol] = Pvalue;
}

// Both on Fig 7.7's and Fig 7.9's blocks of 32 x 8 threads.
template <int FILTER_RADIUS>
cudaError_t basic_compile_time_r(const float* N, const float* F, float* P, int width, int height) {
    dim3 block(BLOCK_X, BLOCK_Y);
    dim3 grid(ch07::ceil_div(width, BLOCK_X), ch07::ceil_div(height, BLOCK_Y));
    basic_kernel_compile_time_r<FILTER_RADIUS><<<grid, block>>>(N, F, P, width, height);
    return cudaGetLastError();
}

cudaError_t const_mem_run_time_r(const float* N, float* P, int r, int width, int height) {
    dim3 block(CONST_BLOCK_X, CONST_BLOCK_Y);
    dim3 grid(ch07::ceil_div(width, CONST_BLOCK_X), ch07::ceil_div(height, CONST_BLOCK_Y));
    const_mem_kernel_run_time_r<<<grid, block>>>(N, P, r, width, height);
    return cudaGetLastError();
}

struct Kernel {
    std::string name;  // a CSV field as printed: no commas
    std::function<void()> launch;
    bool library;
    bool interior_only = false;  // checked away from the image's edge only (NppConv says why)
    std::string algo = "";       // the library's algorithm, where it chooses one (cuDNN)
    common::Tolerance tol = {};  // 0 (exact) but for an FFT or Winograd cuDNN algorithm
};

// The rows every ratio is taken against.
const char* const kCudnnDirect = "cuDNN direct sum";
const char* const kCudnnFastest = "cuDNN fastest";

// (The double parentheses keep a template's commas inside CUDA_CHECK's one argument.)
template <int R>
std::vector<Kernel> chapter_kernels(const ch07::Conv2dRunner& run) {
    const float* in = run.input();
    float* out = run.output();
    const int w = run.width(), h = run.height();
    return {
        {"07_07 basic",
         [=, &run] { CUDA_CHECK(convolution_2D_basic(in, run.filter(), out, R, w, h)); }, false},
        {"07_09 constant memory", [=] { CUDA_CHECK(convolution_2D_const_mem<R>(in, out, w, h)); },
         false},
        {"07_07 r at compile time",
         [=, &run] { CUDA_CHECK(basic_compile_time_r<R>(in, run.filter(), out, w, h)); }, false},
        {"07_09 r at run time", [=] { CUDA_CHECK(const_mem_run_time_r(in, out, R, w, h)); }, false},
        {"07_12 tiled", [=] { CUDA_CHECK(convolution_tiled_2D_const_mem<R>(in, out, w, h)); },
         false},
        {"07_15 cached halo",
         [=] { CUDA_CHECK(convolution_cached_tiled_2D_const_mem<R>(in, out, w, h)); }, false},
        {"07_ex2 output tiled", [=] { CUDA_CHECK(convolution_output_tiled_2D<R>(in, out, w, h)); },
         false},
        {"07_91 register tiled", [=] { CUDA_CHECK(conv2d_register_tiled<R>(in, out, w, h)); },
         false},
        {"07_92 register cached", [=] { CUDA_CHECK(conv2d_register_cached<R>(in, out, w, h)); },
         false},
        {"07_93 8 rows/64 regs", [=] { CUDA_CHECK(conv2d_strip_float4<R>(in, out, w, h)); }, false},
        {"07_93 8 rows/80 regs", [=] { CUDA_CHECK((conv2d_strip_float4<R, 8, 6>(in, out, w, h))); },
         false},
        {"07_93 4 rows/64 regs", [=] { CUDA_CHECK((conv2d_strip_float4<R, 4, 8>(in, out, w, h))); },
         false},
        {"07_93 16 rows/128 regs",
         [=] { CUDA_CHECK((conv2d_strip_float4<R, 16, 4>(in, out, w, h))); }, false},
        {"07_94 4x5/72 regs", [=] { CUDA_CHECK(conv2d_strip_fma<R>(in, out, w, h)); }, false},
        {"07_94 4x4/64 regs", [=] { CUDA_CHECK((conv2d_strip_fma<R, 4, 4, 8>(in, out, w, h))); },
         false},
        {"07_94 4x6/80 regs", [=] { CUDA_CHECK((conv2d_strip_fma<R, 4, 6, 6>(in, out, w, h))); },
         false},
        {"07_94 4x8/128 regs", [=] { CUDA_CHECK((conv2d_strip_fma<R, 4, 8, 4>(in, out, w, h))); },
         false},
    };
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 8192;
    ch07::ImageFlags image;
    std::int64_t only_radius = 0, libraries = 1;  // only_radius 0: not given, every radius
    common::Cli cli("07_99_benchmark",
                    "every 2D kernel, cuDNN and NPP on one image, against the roofline floor");
    cli.add_standard(opt, 1, ch07::kMaxSide);
    image.add_to(cli, /*add_radius=*/false);
    cli.add_int("--radius", &only_radius, ch07::kMinRadius, ch07::kMaxRadius, "one radius",
                "1 to 4, each in turn");
    cli.add_enum("--libraries", &libraries, {{"on", 1}, {"off", 0}},
                 "also run cuDNN and NPP where built with them");
    cli.parse_or_exit(argc, argv);
    image.resolve(opt, cli);
    common::Reporter report(opt.csv);
    std::FILE* text = report.text();
    const common::Device dev = common::require_gpu(text);
    const int w = int(image.width), h = int(image.height);
    const std::size_t pixels = std::size_t(w) * h;

#ifdef CH07_HAVE_CUDNN
    std::fprintf(text, "cuDNN %zu (built against %d.%d)\n", cudnnGetVersion(), CUDNN_MAJOR,
                 CUDNN_MINOR);
#else
    std::fprintf(text, "cuDNN: not found when this program was built (no cuDNN row)\n");
#endif
#ifdef CH07_HAVE_NPP
    std::fprintf(text, "NPP: nppiFilter_32f_C1R_Ctx\n");
#else
    std::fprintf(text, "NPP: not found when this program was built (no NPP row)\n");
#endif

    common::require_device_bytes(4.0 * sizeof(float) * pixels,
                                 "the image, its output and the copies");
    const double copy_gbps = copy_bandwidth(dev, opt.reps, std::max<std::size_t>(pixels, 1 << 20));
    const double peak_gflops = fp32_peak_gflops(dev);
    std::fprintf(text,
                 "%d x %d fp32 image; copy bandwidth %.0f GB/s (read + write, measured now), "
                 "fp32 FMA peak %.0f GFLOP/s\n",
                 w, h, copy_gbps, peak_gflops);
    if (opt.csv)
        std::printf(
            "radius,kernel,algo,width,height,ms,gpixel_per_s,gb_per_s,gflop_per_s,pct_of_floor,"
            "speed_vs_cudnn_direct,speed_vs_cudnn_fastest,floor_ms,copy_gbps,fp32_peak_gflops,"
            "ms_min,ms_max\n");

    bool libraries_ok = true;
    std::vector<std::string> summary;
    for (int r = 1; r <= ch07::kMaxRadius; ++r) {
        if (only_radius != 0 && r != only_radius) continue;
        // Progress: at the default size a radius takes seconds (its reference on the host's
        // cores, every kernel checked at every pixel, then timed).
        std::fprintf(text,
                     "r = %d: the reference on the host, then each kernel checked and timed\n", r);
        ch07::Conv2dRunner run(dev, opt.reps, opt.seed, w, h, r);
        std::vector<Kernel> kernels;
        ch07::with_radius(
            r, [&](auto radius) { kernels = chapter_kernels<decltype(radius)::value>(run); });
#ifdef CH07_HAVE_CUDNN
        std::unique_ptr<CudnnConv> cudnn;
        if (libraries) {
            cudnn = std::make_unique<CudnnConv>(run);
            for (const char* row : {kCudnnDirect, kCudnnFastest}) {
                const CudnnConv::Choice& c =
                    row == kCudnnDirect ? cudnn->direct() : cudnn->fastest();
                if (c.ok)
                    kernels.push_back({row, [&c, &cudnn] { cudnn->run(c); }, true, false,
                                       CudnnConv::algo_name(c.algo), cudnn->tolerance(c)});
                else
                    std::fprintf(stderr, "%s: cuDNN found no such fp32 FMA algorithm for r = %d\n",
                                 row, r);
            }
        }
#endif
#ifdef CH07_HAVE_NPP
        std::unique_ptr<NppConv> npp;
        if (libraries) {
            npp = std::make_unique<NppConv>(run);
            kernels.push_back({"NPP nppiFilter", [&] { npp->run(); }, true, true});
        }
#endif
        std::vector<Kernel> verified;
        for (const Kernel& k : kernels) {
            const std::string what = k.algo.empty() ? k.name : k.name + " (" + k.algo + ")";
            const std::vector<float>& got = run.run_once(k.launch);
            const bool ok = k.interior_only ? check_interior(run, what, got, k.tol)
                                            : run.check(what, got, k.tol);
            if (ok) {
                if (k.tol.abs > 0)
                    std::fprintf(text, "%s: largest |error| %.3g, tolerance %.3g\n", what.c_str(),
                                 largest_error(run, got, k.interior_only), k.tol.abs);
                verified.push_back(k);
            } else if (k.library) {
                std::fprintf(stderr, "%s left out: its result differs from the reference\n",
                             k.name.c_str());
                libraries_ok = false;
            } else {
                return common::kExitWrong;
            }
        }

        const double floor_ms =
            std::max(run.bytes() / (copy_gbps * 1e6), run.flops() / (peak_gflops * 1e6));
        std::vector<double> ms;  // the median of each row
        std::vector<common::TimeStats> spread;
        double direct_ms = 0, fastest_ms = 0;  // the two cuDNN rows (0: not run)
        std::string direct_algo, fastest_algo;
        for (const Kernel& k : verified) {
            spread.push_back(run.time(k.launch));
            ms.push_back(spread.back().median);
            if (k.name == kCudnnDirect) direct_ms = ms.back(), direct_algo = k.algo;
            if (k.name == kCudnnFastest) fastest_ms = ms.back(), fastest_algo = k.algo;
        }
        if (!opt.csv) {
            std::fprintf(text, "\nr = %d (%dx%d filter): floor %.4f ms (%s-bound)\n", r, 2 * r + 1,
                         2 * r + 1, floor_ms,
                         run.bytes() / (copy_gbps * 1e6) >= run.flops() / (peak_gflops * 1e6)
                             ? "memory"
                             : "compute");
            std::printf("%-24s %9s %9s %8s %9s %8s %9s %9s\n", "kernel", "ms", "Gpix/s", "GB/s",
                        "GFLOP/s", "%floor", "xcuDNN-d", "xcuDNN-f");
        }
        std::size_t best = 0;
        for (std::size_t i = 0; i < verified.size(); ++i) {
            const Kernel& k = verified[i];
            if (!k.library && ms[i] < ms[best]) best = i;
            const double gpix = pixels / (ms[i] * 1e6), gbps = run.bytes() / (ms[i] * 1e6),
                         gflops = run.flops() / (ms[i] * 1e6), pct = 100.0 * floor_ms / ms[i],
                         vs_direct = direct_ms > 0 ? direct_ms / ms[i] : 0.0,
                         vs_fastest = fastest_ms > 0 ? fastest_ms / ms[i] : 0.0;
            if (opt.csv)
                std::printf(
                    "%d,%s,%s,%d,%d,%.6f,%.3f,%.1f,%.1f,%.2f,%.4f,%.4f,%.6f,%.1f,%.1f,%.6f,%.6f\n",
                    r, k.name.c_str(), k.algo.c_str(), w, h, ms[i], gpix, gbps, gflops, pct,
                    vs_direct, vs_fastest, floor_ms, copy_gbps, peak_gflops, spread[i].min,
                    spread[i].max);
            else
                std::printf("%-24s %9.4f %9.2f %8.1f %9.1f %7.1f%% %9.3f %9.3f%s\n", k.name.c_str(),
                            ms[i], gpix, gbps, gflops, pct, vs_direct, vs_fastest,
                            k.algo.empty() ? "" : ("  " + k.algo).c_str());
        }
        char line[320];
        std::snprintf(line, sizeof line, "r = %d: fastest chapter kernel %s, %.1f%% of the floor",
                      r, verified[best].name.c_str(), 100.0 * floor_ms / ms[best]);
        std::string summary_line = line;
        if (direct_ms > 0) {
            std::snprintf(line, sizeof line, ", %.2fx %s (%s)", direct_ms / ms[best], kCudnnDirect,
                          direct_algo.c_str());
            summary_line += line;
        }
        if (fastest_ms > 0) {
            std::snprintf(line, sizeof line, ", %.2fx %s (%s)", fastest_ms / ms[best],
                          kCudnnFastest, fastest_algo.c_str());
            summary_line += line;
        }
        summary.push_back(summary_line);
    }
    std::fprintf(text, "\nevery chapter kernel verified, every pixel, at every radius\n");
    for (const std::string& s : summary) std::fprintf(text, "%s\n", s.c_str());
    if (!libraries_ok) {
        std::fprintf(stderr, "FAIL: a library's result differed from the reference (see above)\n");
        return common::kExitWrong;
    }
    return common::kExitOk;
}
