// common.cuh: the CUDA half of the shared helpers (common.h is the host half).
//   CUDA_CHECK(call), CUDA_CHECK_LAUNCH()  file:line, the error's name and text, exit 1
//   require_gpu()                           the device's name, SMs, peak bandwidth; no GPU or no
//                                           driver: exit 77; driver too old, other errors: exit 1
//   require_device_bytes()                  a size the GPU cannot hold: a clear message, exit 1
//   DeviceBuffer<T>                         cudaMalloc'd array freed on scope exit; poison()
//   Timer                                   CUDA events, warm-up, median (and spread), L2 flush
//   checked_launch()                        one launch, timed in a graded run (homework/grader)
#pragma once

#include <cuda_runtime.h>

#include "common.h"

namespace common {

inline void cuda_check(cudaError_t err, const char* what, const char* file, int line) {
    if (err == cudaSuccess) return;
    std::fprintf(stderr, "CUDA error at %s:%d: %s: %s (%s)\n", file, line, what,
                 cudaGetErrorName(err), cudaGetErrorString(err));
    std::exit(kExitWrong);
}

#define CUDA_CHECK(call) ::common::cuda_check((call), #call, __FILE__, __LINE__)
// After every <<<...>>>: a bad configuration is reported here, a fault in the kernel at the next
// synchronising call, which is checked too.
#define CUDA_CHECK_LAUNCH() \
    ::common::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

inline unsigned int ceil_div(std::int64_t a, std::int64_t b) {
    return static_cast<unsigned int>((a + b - 1) / b);
}

struct Device {
    int id = 0;
    std::string name;
    int sm_count = 0;
    int cc_major = 0, cc_minor = 0;
    int l2_bytes = 0;
    double peak_gbps = 0;  // 2 (double data rate) x memory clock x bus width
};

// The device to run on: its facts, printed in one line. With no GPU or no driver, exits with
// kExitSkip; with a driver too old for this build, or any other error, exits with kExitWrong;
// either way with one line saying why (classify_gpu_query in common.h decides).
inline Device require_gpu(std::FILE* text = stdout) {
    GpuQuery q{};
    const cudaError_t err = cudaGetDeviceCount(&q.device_count);
    q.ok = err == cudaSuccess;
    q.no_device_error = err == cudaErrorNoDevice;
    q.error_name = cudaGetErrorName(err);
    // Both calls work without a driver (the driver version is then 0).
    if (cudaDriverGetVersion(&q.driver_version) != cudaSuccess) q.driver_version = 0;
    if (cudaRuntimeGetVersion(&q.runtime_version) != cudaSuccess) q.runtime_version = 0;
    std::string reason;
    const int verdict = classify_gpu_query(q, &reason);
    if (verdict == kExitSkip) {
        std::fprintf(stderr, "SKIP: %s\n", reason.c_str());
        std::exit(kExitSkip);
    }
    if (verdict != kExitOk) {
        std::fprintf(stderr, "FAIL: a CUDA device cannot be used: %s\n", reason.c_str());
        std::exit(kExitWrong);
    }
    Device d;
    CUDA_CHECK(cudaGetDevice(&d.id));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, d.id));
    d.name = prop.name;
    // CUDA 13 removed cudaDeviceProp::memoryClockRate; the attributes remain.
    int clock_khz = 0, bus_bits = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, d.id));
    CUDA_CHECK(cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, d.id));
    CUDA_CHECK(cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, d.id));
    CUDA_CHECK(cudaDeviceGetAttribute(&d.l2_bytes, cudaDevAttrL2CacheSize, d.id));
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, d.id));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, d.id));
    d.peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    std::fprintf(text, "device %d: %s, sm_%d%d, %d SMs, %.0f GB/s peak memory bandwidth\n", d.id,
                 d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, d.peak_gbps);
    return d;
}

// Call before allocating: a size the GPU cannot hold is a clear message, not a crash.
inline void require_device_bytes(double bytes, const char* what) {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > 0.95 * static_cast<double>(free_bytes)) {
        std::fprintf(stderr,
                     "%s needs %.1f MiB of device memory but only %.1f MiB of %.1f MiB "
                     "are free: choose a smaller --n\n",
                     what, bytes / (1 << 20), free_bytes / double(1 << 20),
                     total_bytes / double(1 << 20));
        std::exit(kExitWrong);
    }
}

template <class T>
class DeviceBuffer {
  public:
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        CUDA_CHECK(cudaMalloc(&ptr_, std::max<std::size_t>(count, 1) * sizeof(T)));
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
        CUDA_CHECK(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    ~DeviceBuffer() { cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return ptr_; }
    std::size_t size() const { return count_; }
    // Fills every byte with kPoisonByte before a kernel that must write the buffer: a float reads
    // NaN, an int -1, an unsigned int 0xffffffff, so an element the kernel leaves unwritten fails
    // the check (choose inputs whose results can never be -1).
    static constexpr int kPoisonByte = 0xff;
    void poison() const { CUDA_CHECK(cudaMemset(ptr_, kPoisonByte, count_ * sizeof(T))); }
    std::vector<T> to_host() const {
        std::vector<T> host = to_host_ungraded();
        graded("device data", host);  // a graded run records it, a replay substitutes it
        return host;
    }
    // The same, kept out of a graded run's record: for a check the run makes itself and records
    // only the verdict of (Timer::measure's check).
    std::vector<T> to_host_ungraded() const {
        std::vector<T> host(count_);
        CUDA_CHECK(cudaMemcpy(host.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }

  private:
    T* ptr_ = nullptr;
    std::size_t count_;
};

// Reads p[0..n) and keeps nothing: every line it brings into the L2 is clean, so that the next
// timed launch finds the L2 full of lines it does not use and never pays for writing one back.
// The buffer holds four equal words in every int4, so x stays 0 and the store that keeps the
// loads from being optimised away is never made. (A template: its one definition may be in every
// file of a program that includes this.)
template <int = 0>
__global__ void l2_flush_read(const int4* p, std::size_t n, int* never_written) {
    int x = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const int4 v = p[i];
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x != 0) *never_written = x;
}

// One launch in a graded run (homework/grader), timed with CUDA events; elsewhere just launch().
// In a graded run every launch of a student's kernel is timed, the one whose output is checked
// included, and every timed one is checked (Timer::measure): a kernel that is slow only on its
// first launch, or right only on the checked one, is caught. The time goes to the record as
// "launch ms", which the grader holds to the exercise's budget.
template <class Launch>
void checked_launch(Launch&& launch) {
    if (!grading()) {
        launch();
        return;
    }
    cudaEvent_t start{}, stop{};
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    launch();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    double value = ms;
    graded("launch ms", value);
}

// Times GPU work with CUDA events: warm-up launches first (module load, first-touch), then `reps`
// timed launches whose median is returned. `before` runs outside the timed region before every
// launch (restoring an input that the kernel overwrites, poisoning the output); measure() also
// gives the fastest and slowest run. With flush_l2, a buffer twice the L2 size is read before
// each launch, so that no launch reads the previous one's data from the L2 and none finds dirty
// lines there whose write-back it would pay for.
//
// In a graded run (homework/grader) every launch, the warm-ups included, is timed and handed to
// the record ("launch ms"), and `check` runs after it: it reads the launch's output back and
// returns whether it is right (printing the first mismatch where not). A wrong launch fails the
// run there. measure() without a `check` refuses to run graded.
class Timer {
  public:
    Timer(const Device& dev, std::int64_t reps, bool flush_l2 = true)
        : reps_(reps),
          flush_blocks_(4 * dev.sm_count),
          flush_(flush_l2 ? 2 * static_cast<std::size_t>(dev.l2_bytes) / sizeof(int4) : 0) {
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&stop_));
        if (flush_.size() > 0)
            CUDA_CHECK(cudaMemset(flush_.get(), 0x5a, flush_.size() * sizeof(int4)));
    }
    ~Timer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;
    static constexpr int kWarmup = 2;  // untimed launches before the `reps` timed ones

    template <class Launch, class Before, class Check>
    TimeStats measure(Launch&& launch, Before&& before, Check&& check) {
        const bool graded_run = grading(), replay = replaying();
        std::vector<double> times;
        for (std::int64_t r = 0; r < kWarmup + reps_; ++r) {
            before();
            if (flush_.size() > 0) {
                l2_flush_read<<<flush_blocks_, 256>>>(flush_.get(), flush_.size(), nullptr);
                CUDA_CHECK_LAUNCH();
            }
            CUDA_CHECK(cudaEventRecord(start_));
            launch();
            CUDA_CHECK(cudaEventRecord(stop_));
            CUDA_CHECK(cudaEventSynchronize(stop_));
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
            if (r >= kWarmup) times.push_back(ms);
            if (!graded_run) continue;
            double value = ms;
            graded("launch ms", value);
            // A replay takes the recorded run's verdict of its launch: its own check would judge
            // only the launch of the program as handed out, and cost the grader the same again.
            std::uint8_t ok = replay || check() ? 1 : 0;
            graded("launch checked", ok);
            if (!ok) {
                std::fprintf(stderr, "FAIL launch %lld of %lld timed: its output is wrong\n",
                             static_cast<long long>(r + 1),
                             static_cast<long long>(kWarmup + reps_));
                std::exit(kExitWrong);
            }
        }
        return time_stats(times);
    }
    template <class Launch, class Before>
    TimeStats measure(Launch&& launch, Before&& before) {
        return measure(launch, before, [] {
            std::fprintf(stderr,
                         "FAIL grading: this program times launches it does not check; an "
                         "exercise's program passes Timer::measure a check\n");
            return false;
        });
    }
    template <class Launch, class Before>
    double median_ms(Launch&& launch, Before&& before) {
        return measure(launch, before).median;
    }
    template <class Launch>
    double median_ms(Launch&& launch) {
        return median_ms(launch, [] {});
    }

  private:
    std::int64_t reps_;
    int flush_blocks_;
    DeviceBuffer<int4> flush_;
    cudaEvent_t start_{}, stop_{};
};

}  // namespace common
