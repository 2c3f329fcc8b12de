// 07_99_benchmark: beyond the book: every 2D kernel of the chapter on the same image, against the
// roofline floor and the libraries a user would pick instead.
//
// For each radius (default 1..4; --radius for one) on one random W x H fp32 image (default
// 8192 x 8192) it runs Fig 7.7 (basic), Fig 7.9 (constant memory), Fig 7.12 (tiled), Fig 7.15
// (cached halo), 07_ex2 (output-tiled), 07_91 (register-tiled), 07_92 (register window, reuse
// from the caches), 07_93 (float4 strips: 8 rows and 64 registers per thread; also 8 rows with 80,
// 4 rows with 64 and 16 rows with 128), and, where the build found them, cuDNN
// (cudnnConvolutionForward: one image, one channel, zero padding r, cross-correlation as in the
// book, CUDNN_FMA_MATH so that it computes in fp32 like the kernels; the fastest direct-sum
// algorithm that cudnnFindConvolutionForwardAlgorithm reports) and NPP (nppiFilter_32f_C1R_Ctx on a
// zero-padded copy of the image made once beforehand, see NppConv). Every one is checked against
// the sequential convolution, every pixel exactly (NPP: away from the edge), before it is timed
// (median of --reps, L2 flushed before every run).
//
// The roofline floor of a radius is the larger of
//   memory:  the image read once and the output written once (8 bytes per pixel) at the copy
//            bandwidth measured in this run (cudaMemcpy device to device, or a float4 copy
//            kernel, whichever is faster; its bytes are also read once and written once)
//   compute: 2 (2r+1)^2 FLOP per pixel at the fp32 FMA peak (SMs x FP32 lanes per SM x 2 x the
//            SM clock the device reports)
// Columns: ms, Gpixel/s, GB/s (8 bytes per pixel), GFLOP/s, % of the floor (floor time / time),
// and x cuDNN (cuDNN time / time, above 1 is faster). --csv writes the same as CSV;
// plot_benchmark.py turns that into the README table and the plot.
//
// Build: cmake --build build --target 07_99_benchmark
// Run:   build/bin/07_99_benchmark [--n 8192 | --width W --height H] [--radius 0] [--reps 20]
//        [--libraries 1] [--csv > results.csv]
#define CH07_KERNELS_ONLY  // each figure's file brings its kernel and launcher, not its main
#include "07_07_conv2d_basic.cu"
#include "07_09_conv2d_constant_memory.cu"
#include "07_12_conv2d_tiled.cu"
#include "07_15_conv2d_tiled_cached_halo.cu"
#include "07_91_conv2d_register_tiled.cu"
#include "07_92_conv2d_register_cached.cu"
#include "07_93_conv2d_strip_float4.cu"
#include "07_ex2_conv2d_output_tiled.cu"

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
// the book's convolution with ghost cells 0.
class CudnnConv {
  public:
    CudnnConv(const ch07::Conv2dRunner& run) : run_(run) {
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
        // Sorted fastest first; the first that ran, computes in fp32 FMA and sums the products
        // directly. The FFT and Winograd algorithms round in a transformed domain, so they are a
        // different computation (on the H200 Winograd was off by 2e-5 at 3x2) that the exact check
        // would reject.
        for (int i = 0; i < found && !ok_; ++i) {
            const cudnnConvolutionFwdAlgo_t a = perf[i].algo;
            const bool direct_sum = a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
                                    a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
                                    a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM ||
                                    a == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
            if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].mathType != CUDNN_FMA_MATH ||
                !direct_sum)
                continue;
            algo_ = perf[i].algo;
            workspace_bytes_ = perf[i].memory;
            ok_ = true;
        }
        if (ok_ && workspace_bytes_ > 0) CUDA_CHECK(cudaMalloc(&workspace_, workspace_bytes_));
    }
    ~CudnnConv() {
        cudaFree(workspace_);
        cudnnDestroyConvolutionDescriptor(conv_);
        cudnnDestroyFilterDescriptor(filter_);
        cudnnDestroyTensorDescriptor(image_);
        cudnnDestroy(handle_);
    }
    bool ok() const { return ok_; }
    std::string name() const { return "cuDNN algo " + std::to_string(int(algo_)); }
    void run() const {
        const float one = 1.0f, zero = 0.0f;
        CUDNN_CHECK(cudnnConvolutionForward(handle_, &one, image_, run_.input(), filter_,
                                            run_.filter(), conv_, algo_, workspace_,
                                            workspace_bytes_, &zero, image_, run_.output()));
    }

  private:
    const ch07::Conv2dRunner& run_;
    cudnnHandle_t handle_{};
    cudnnTensorDescriptor_t image_{};
    cudnnFilterDescriptor_t filter_{};
    cudnnConvolutionDescriptor_t conv_{};
    cudnnConvolutionFwdAlgo_t algo_{};
    void* workspace_ = nullptr;
    std::size_t workspace_bytes_ = 0;
    bool ok_ = false;
};
#endif

#ifdef CH07_HAVE_NPP
// nppiFilter_32f_C1R_Ctx runs on a copy of the image with kMargin zero rows and columns around it
// (the ghost cells, stored), the ROI being the W x H interior. NPP's filter reads the neighbourhood
// of every ROI pixel through pSrc and its step, and nothing keeps it inside an allocation but the
// caller: the second H200 run gave it the zero-padded copy itself as its ROI, so the window of the
// first pixel began r rows and columns before the allocation, and the 8192 x 8192 run stopped
// with an illegal address (at small sizes the read landed in other allocations and went unseen).
// The margin is 32 floats, not r: any read NPP makes up to 32 columns or rows beyond the window
// stays inside the copy, and every row and pSrc start on a 128-byte boundary, as nppiMalloc would
// give. The output is the W x H image itself (step W floats), of which NPP writes the ROI only.
// On the H200 with CUDA 13.0, the 3x3 and 5x5 filters gave other values than the zero border in
// the r-wide ring at the image's edge (and exactly the reference inside it), while 7x7 and 9x9
// matched everywhere; so NPP is checked exactly on the interior and the ring's mismatches are
// counted and printed (Conv2dRunner::verify). The coefficients are passed reversed, as NPP's
// documentation asks (it computes a true convolution).
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

// FP32 lanes per SM: 64 on sm_80 (A100), 128 on sm_86 and later (H100/H200 among them) and 70-75.
double fp32_peak_gflops(const common::Device& dev) {
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev.id));
    const int lanes = (dev.cc_major == 8 && dev.cc_minor == 0) || dev.cc_major < 7 ? 64 : 128;
    return dev.sm_count * lanes * 2.0 * clock_khz * 1e3 / 1e9;
}

struct Kernel {
    std::string name;  // a CSV field as printed: no commas
    std::function<void()> launch;
    bool library;
    bool interior_only = false;  // checked away from the image's edge only (NppConv says why)
};

template <int R>
std::vector<Kernel> chapter_kernels(const ch07::Conv2dRunner& run) {
    const float* in = run.input();
    float* out = run.output();
    const int w = run.width(), h = run.height();
    return {
        {"07_07 basic", [=, &run] { convolution_2D_basic(in, run.filter(), out, R, w, h); }, false},
        {"07_09 constant memory", [=] { convolution_2D_const_mem<R>(in, out, w, h); }, false},
        {"07_12 tiled", [=] { convolution_tiled_2D_const_mem<R>(in, out, w, h); }, false},
        {"07_15 cached halo", [=] { convolution_cached_tiled_2D_const_mem<R>(in, out, w, h); },
         false},
        {"07_ex2 output tiled", [=] { convolution_output_tiled_2D<R>(in, out, w, h); }, false},
        {"07_91 register tiled", [=] { conv2d_register_tiled<R>(in, out, w, h); }, false},
        {"07_92 register cached", [=] { conv2d_register_cached<R>(in, out, w, h); }, false},
        {"07_93 8 rows/64 regs", [=] { conv2d_strip_float4<R>(in, out, w, h); }, false},
        {"07_93 8 rows/80 regs", [=] { conv2d_strip_float4<R, 8, 6>(in, out, w, h); }, false},
        {"07_93 4 rows/64 regs", [=] { conv2d_strip_float4<R, 4, 8>(in, out, w, h); }, false},
        {"07_93 16 rows/128 regs", [=] { conv2d_strip_float4<R, 16, 4>(in, out, w, h); }, false},
    };
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 8192;
    ch07::ImageFlags image;
    std::int64_t only_radius = 0, libraries = 1;
    common::Cli cli("07_99_benchmark",
                    "every 2D kernel, cuDNN and NPP on one image, against the roofline floor");
    cli.add_standard(opt, 1, ch07::kMaxSide);
    cli.add_int("--width", &image.width, 0, ch07::kMaxSide, "image width (0: --n)");
    cli.add_int("--height", &image.height, 0, ch07::kMaxSide, "image height (0: --n)");
    cli.add_int("--radius", &only_radius, 0, ch07::kMaxRadius, "one radius (0: 1 to 4)");
    cli.add_int("--libraries", &libraries, 0, 1, "also run cuDNN and NPP where built with them");
    cli.parse_or_exit(argc, argv);
    image.resolve(opt);
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
            "radius,kernel,width,height,ms,gpixel_per_s,gb_per_s,gflop_per_s,pct_of_floor,"
            "speed_vs_cudnn,floor_ms,copy_gbps,fp32_peak_gflops\n");

    bool libraries_ok = true;
    std::vector<std::string> summary;
    for (int r = 1; r <= ch07::kMaxRadius; ++r) {
        if (only_radius != 0 && r != only_radius) continue;
        ch07::Conv2dRunner run(dev, opt.reps, opt.seed, w, h, r);
        std::vector<Kernel> kernels;
        ch07::with_radius(
            r, [&](auto radius) { kernels = chapter_kernels<decltype(radius)::value>(run); });
#ifdef CH07_HAVE_CUDNN
        std::unique_ptr<CudnnConv> cudnn;
        if (libraries) {
            cudnn = std::make_unique<CudnnConv>(run);
            if (cudnn->ok())
                kernels.push_back({cudnn->name(), [&] { cudnn->run(); }, true});
            else
                std::fprintf(stderr, "cuDNN found no direct-sum fp32 FMA algorithm for r = %d\n",
                             r);
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
            if (run.verify(k.name, k.launch, k.interior_only)) {
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
        std::vector<double> ms;
        double cudnn_ms = 0;
        for (const Kernel& k : verified) {
            ms.push_back(run.median_ms(k.launch));
            if (k.name.rfind("cuDNN", 0) == 0) cudnn_ms = ms.back();
        }
        if (!opt.csv) {
            std::fprintf(text, "\nr = %d (%dx%d filter): floor %.4f ms (%s-bound)\n", r, 2 * r + 1,
                         2 * r + 1, floor_ms,
                         run.bytes() / (copy_gbps * 1e6) >= run.flops() / (peak_gflops * 1e6)
                             ? "memory"
                             : "compute");
            std::printf("%-24s %9s %9s %8s %9s %8s %8s\n", "kernel", "ms", "Gpix/s", "GB/s",
                        "GFLOP/s", "%floor", "xcuDNN");
        }
        std::size_t best = 0;
        for (std::size_t i = 0; i < verified.size(); ++i) {
            const Kernel& k = verified[i];
            if (!k.library && ms[i] < ms[best]) best = i;
            const double gpix = pixels / (ms[i] * 1e6), gbps = run.bytes() / (ms[i] * 1e6),
                         gflops = run.flops() / (ms[i] * 1e6), pct = 100.0 * floor_ms / ms[i],
                         vs = cudnn_ms > 0 ? cudnn_ms / ms[i] : 0.0;
            if (opt.csv)
                std::printf("%d,%s,%d,%d,%.6f,%.3f,%.1f,%.1f,%.2f,%.4f,%.6f,%.1f,%.1f\n", r,
                            k.name.c_str(), w, h, ms[i], gpix, gbps, gflops, pct, vs, floor_ms,
                            copy_gbps, peak_gflops);
            else
                std::printf("%-24s %9.4f %9.2f %8.1f %9.1f %7.1f%% %8.3f\n", k.name.c_str(), ms[i],
                            gpix, gbps, gflops, pct, vs);
        }
        char line[256];
        std::snprintf(
            line, sizeof line, "r = %d: fastest chapter kernel %s, %.1f%% of the floor%s", r,
            verified[best].name.c_str(), 100.0 * floor_ms / ms[best],
            cudnn_ms > 0
                ? (", " + std::to_string(cudnn_ms / ms[best]).substr(0, 5) + "x cuDNN").c_str()
                : "");
        summary.push_back(line);
    }
    std::fprintf(text, "\nevery chapter kernel verified, every pixel, at every radius\n");
    for (const std::string& s : summary) std::fprintf(text, "%s\n", s.c_str());
    if (!libraries_ok) {
        std::fprintf(stderr, "FAIL: a library's result differed from the reference (see above)\n");
        return common::kExitWrong;
    }
    return common::kExitOk;
}
