// common.cuh: the CUDA half of the shared helpers (common.h is the host half).
//   CUDA_CHECK(call), CUDA_CHECK_LAUNCH()  file:line, the error's name and text, exit 1
//   require_gpu()                           the device's name, SMs, peak bandwidth; no GPU or no
//                                           driver: exit 77; driver too old, other errors: exit 1
//   require_device_bytes()                  a size the GPU cannot hold: a clear message, exit 1
//   DeviceBuffer<T>                         cudaMalloc'd array freed on scope exit; poison()
//   Timer                                   CUDA events, warm-up, median (and spread), L2 flush
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
        std::vector<T> host(count_);
        CUDA_CHECK(cudaMemcpy(host.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
        graded("device data", host);  // a graded run records it, a replay substitutes it
        return host;
    }

  private:
    T* ptr_ = nullptr;
    std::size_t count_;
};

// Times GPU work with CUDA events: warm-up launches first (module load, first-touch), then `reps`
// timed launches whose median is returned. `before` runs outside the timed region before every
// launch (e.g. restoring an input that the kernel overwrites); measure() also gives the fastest
// and slowest run. With flush_l2, a buffer twice the
// L2 size is written before each launch so that no launch reads the previous one's data from L2.
class Timer {
  public:
    Timer(const Device& dev, std::int64_t reps, bool flush_l2 = true)
        : reps_(reps), flush_(flush_l2 ? 2 * static_cast<std::size_t>(dev.l2_bytes) : 0) {
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&stop_));
    }
    ~Timer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;
    static constexpr int kWarmup = 2;  // untimed launches before the `reps` timed ones

    template <class Launch, class Before>
    TimeStats measure(Launch&& launch, Before&& before) {
        std::vector<double> times;
        for (std::int64_t r = 0; r < kWarmup + reps_; ++r) {
            before();
            if (flush_.size() > 1)
                CUDA_CHECK(cudaMemsetAsync(flush_.get(), r & 0xff, flush_.size()));
            CUDA_CHECK(cudaEventRecord(start_));
            launch();
            CUDA_CHECK(cudaEventRecord(stop_));
            CUDA_CHECK(cudaEventSynchronize(stop_));
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
            if (r >= kWarmup) times.push_back(ms);
        }
        return time_stats(times);
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
    DeviceBuffer<unsigned char> flush_;
    cudaEvent_t start_{}, stop_{};
};

}  // namespace common
