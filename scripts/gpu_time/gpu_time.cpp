// pmpp_gpu_time: how long the GPU worked for one program, without touching the program.
//
// A CUPTI injection library: with CUDA_INJECTION64_PATH naming it, the CUDA driver loads it into
// any CUDA program when the program first initialises CUDA, and calls InitializeInjection(). From
// then on CUPTI's activity API records the start and end of every kernel, memcpy and memset the
// program runs (concurrent-kernel tracing, which does not serialise kernels as the plain kernel
// kind would). At exit the library writes one line to the file that PMPP_GPU_TIME_FILE names:
//
//   gpu_busy_seconds 0.012345 gpu_sum_seconds 0.013000 kernels 120 memcpys 8 memsets 2 dropped 0
//
// busy: the union of all those intervals (the time the GPU was doing this program's work,
// overlapping work counted once); sum: their durations added up; dropped: records CUPTI lost
// (then the times are too low). Nothing is written where CUPTI could not be set up (no driver,
// no GPU, a profiler already attached): scripts/time_programs.py then reports no GPU time.
// Tracing costs each launch a few microseconds of host time, which the program's own times (CUDA
// events around its kernels) do not see.
//
// Built by scripts/CMakeLists.txt where the toolkit has CUPTI; used by scripts/time_programs.py.
#include <cupti.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#if defined(_WIN32)
#define PMPP_EXPORT __declspec(dllexport)
#else
#define PMPP_EXPORT
#endif

// The record layouts of the toolkit this is built with (start and end sit at the same place in
// every version; CUPTI returns its own newest, which the same toolkit's header names).
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
#else
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy5;
#endif
using MemsetRecord = CUpti_ActivityMemset4;

namespace {

constexpr std::size_t kBufferBytes = 8u << 20;  // CUPTI asks for a buffer at a time

struct Totals {
    std::mutex mutex;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals;  // [start, end) in ns
    std::uint64_t kernels = 0, memcpys = 0, memsets = 0, dropped = 0;
    bool ready = false;
};

Totals& totals() {
    static Totals* t = new Totals;  // never destroyed: CUPTI may call back during exit
    return *t;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::malloc(kBufferBytes));  // 16-byte aligned
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                               std::size_t /*size*/, std::size_t valid) {
    Totals& t = totals();
    std::lock_guard<std::mutex> lock(t.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        std::uint64_t start = 0, end = 0;
        switch (record->kind) {
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            case CUPTI_ACTIVITY_KIND_KERNEL: {
                const auto* k = reinterpret_cast<const KernelRecord*>(record);
                start = k->start;
                end = k->end;
                ++t.kernels;
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMCPY: {
                const auto* m = reinterpret_cast<const MemcpyRecord*>(record);
                start = m->start;
                end = m->end;
                ++t.memcpys;
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMSET: {
                const auto* m = reinterpret_cast<const MemsetRecord*>(record);
                start = m->start;
                end = m->end;
                ++t.memsets;
                break;
            }
            default:
                continue;
        }
        if (end > start) t.intervals.emplace_back(start, end);
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) {
        t.dropped += dropped;
    }
    std::free(buffer);
}

void write_totals() {
    Totals& t = totals();
    if (!t.ready) return;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(t.mutex);
    std::sort(t.intervals.begin(), t.intervals.end());
    std::uint64_t busy = 0, sum = 0, covered_to = 0;
    for (const auto& [start, end] : t.intervals) {
        sum += end - start;
        const std::uint64_t from = std::max(start, covered_to);
        if (end > from) busy += end - from;
        covered_to = std::max(covered_to, end);
    }
    const char* path = std::getenv("PMPP_GPU_TIME_FILE");
    if (path == nullptr) return;
    std::FILE* f = std::fopen(path, "w");
    if (f == nullptr) return;
    std::fprintf(f,
                 "gpu_busy_seconds %.6f gpu_sum_seconds %.6f kernels %llu memcpys %llu "
                 "memsets %llu dropped %llu\n",
                 busy * 1e-9, sum * 1e-9, static_cast<unsigned long long>(t.kernels),
                 static_cast<unsigned long long>(t.memcpys),
                 static_cast<unsigned long long>(t.memsets),
                 static_cast<unsigned long long>(t.dropped));
    std::fclose(f);
}

}  // namespace

// Called by the CUDA driver while the program initialises CUDA; 1 tells it all went well (a
// failure leaves the program untouched and writes nothing).
extern "C" PMPP_EXPORT int InitializeInjection(void) {
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
        return 0;
    }
    for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                    CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET}) {
        if (cuptiActivityEnable(kind) != CUPTI_SUCCESS) return 0;
    }
    totals().ready = true;
    // Registered after the CUDA runtime's own exit handler (the runtime initialised CUDA, which
    // loaded this library), so it runs first, while the contexts still exist.
    std::atexit(write_totals);
    return 1;
}
