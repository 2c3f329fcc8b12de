// common.h: the host half of the helpers every example shares; it needs no CUDA.
//   flags        Cli, Options: --n --seed --reps --csv --help plus each program's own flags
//   inputs       random_floats / random_ints: seeded and identical on every platform
//   verification check_close: stated tolerance, NaN/Inf always wrong, first mismatch reported
//   results      Reporter: one result line per measurement, or CSV rows with --csv
//   grading      graded(): what a graded run reads back, for homework/grader (grading.cpp)
// common.cuh adds the CUDA half (error checks, device facts, buffers, event timing).
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace common {

// Exit codes shared by every program; CTest treats kExitSkip as "skipped".
constexpr int kExitOk = 0;
constexpr int kExitWrong = 1;  // wrong result, CUDA error, or a size the GPU cannot hold
constexpr int kExitUsage = 2;
constexpr int kExitSkip = 77;  // no CUDA device, or no driver at all

// Whether a GPU program can run, from what the CUDA runtime reported (require_gpu() in
// common.cuh asks; this decides, without CUDA, so that common_test can try every case):
//  - no GPU (the no-device error, or zero devices) or no driver installed (the driver version is
//    0): skip, kExitSkip, since there is nothing to test on;
//  - a driver older than the runtime, or any other error: a failure, kExitWrong, with the reason:
//    a machine with a GPU whose tests cannot run must not pass as "skipped".
// Without any driver the runtime reports "insufficient driver" too; the driver version (0, or the
// installed driver's) tells the two apart.
struct GpuQuery {
    bool ok;                 // cudaGetDeviceCount returned cudaSuccess
    bool no_device_error;    // it returned cudaErrorNoDevice
    const char* error_name;  // its error's name, when not ok
    int device_count;
    int driver_version;   // cudaDriverGetVersion: 0 when no driver is installed
    int runtime_version;  // cudaRuntimeGetVersion
};

// Returns kExitOk (a device can be used), kExitSkip or kExitWrong; *reason says why.
inline int classify_gpu_query(const GpuQuery& q, std::string* reason) {
    auto version = [](int v) {
        return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    };
    if (q.ok && q.device_count > 0) {
        *reason = std::to_string(q.device_count) + " device(s)";
        return kExitOk;
    }
    if (q.ok || q.no_device_error) {
        *reason = "no CUDA device";
        return kExitSkip;
    }
    if (q.driver_version == 0) {
        *reason = std::string("no CUDA driver installed (") + q.error_name + ")";
        return kExitSkip;
    }
    if (q.driver_version < q.runtime_version) {
        *reason = "the CUDA driver supports CUDA " + version(q.driver_version) +
                  ", older than this build's runtime, CUDA " + version(q.runtime_version) +
                  ": update the driver (" + q.error_name + ")";
        return kExitWrong;
    }
    *reason = std::string("cudaGetDeviceCount failed: ") + q.error_name;
    return kExitWrong;
}

// ---------------------------------------------------------------------------------------------
// Flags

struct Options {
    std::int64_t n = 0;  // problem size: each program sets its own default before parsing
    std::int64_t seed = 1234;
    std::int64_t reps = 20;  // timed repetitions; the median is reported
    bool csv = false;
};

class Cli {
  public:
    enum class Status { kOk, kHelp, kError };

    Cli(std::string program, std::string summary)
        : program_(std::move(program)), summary_(std::move(summary)) {}

    // --n (bounded by [n_min, n_max]), --seed, --reps, --csv.
    void add_standard(Options& opt, std::int64_t n_min, std::int64_t n_max) {
        add_n(opt, n_min, n_max);
        add_seed(opt);
        add_reps(opt);
        add_csv(opt);
    }
    // The four one by one, for a program that has no use for one of them (no random input, nothing
    // timed): a flag it would ignore is one it must not accept. `help` and `unset` as for add_int.
    void add_n(Options& opt, std::int64_t n_min, std::int64_t n_max,
               const char* help = "problem size", const char* unset = nullptr) {
        add_int("--n", &opt.n, n_min, n_max, help, unset);
    }
    void add_seed(Options& opt) {
        add_int("--seed", &opt.seed, 0, INT64_MAX, "seed of the random input");
    }
    void add_reps(Options& opt) {
        add_int("--reps", &opt.reps, 1, 100000, "timed repetitions (median reported)");
    }
    void add_csv(Options& opt) {
        add_flag("--csv", &opt.csv, "print results as CSV rows instead of result lines");
    }
    // An integer in [min, max]; anything else is refused with the range. `unset`, where given,
    // says what the program does when the flag is absent (a default that is no number: "--n",
    // "radii 1 to 4"); the variable then keeps its initial value, outside [min, max].
    void add_int(const char* name, std::int64_t* value, std::int64_t min, std::int64_t max,
                 const char* help, const char* unset = nullptr) {
        Flag& f = add(name, help, Kind::kInt, unset);
        f.integer = value;
        f.min = min;
        f.max = max;
    }
    // An integer that must be one of `choices`.
    void add_choice(const char* name, std::int64_t* value, std::vector<std::int64_t> choices,
                    const char* help) {
        add_int(name, value, *std::min_element(choices.begin(), choices.end()),
                *std::max_element(choices.begin(), choices.end()), help);
        for (std::int64_t c : choices) flags_.back().choices.push_back({std::to_string(c), c});
    }
    // An enumerated flag: the names a user types (`--order sorted`), each standing for a number
    // the program uses; the number itself is accepted too.
    struct Name {
        std::string name;
        std::int64_t value;
    };
    void add_enum(const char* name, std::int64_t* value, std::vector<Name> names,
                  const char* help) {
        std::vector<std::int64_t> values;
        for (const Name& n : names) values.push_back(n.value);
        add_int(name, value, *std::min_element(values.begin(), values.end()),
                *std::max_element(values.begin(), values.end()), help);
        flags_.back().choices = std::move(names);
        flags_.back().named = true;
    }
    void add_flag(const char* name, bool* value, const char* help) {
        add(name, help, Kind::kSwitch, nullptr).boolean = value;
    }
    // A text value (a path); an empty one is refused. `unset` as for add_int.
    void add_string(const char* name, std::string* value, const char* help,
                    const char* unset = nullptr) {
        add(name, help, Kind::kString, unset).text = value;
    }

    // Parses without exiting, so that the parser itself can be tested. *error says what was wrong.
    Status parse(int argc, const char* const* argv, std::string* error) {
        for (Flag& f : flags_) f.given = false;
        for (int a = 1; a < argc; ++a) {
            std::string arg = argv[a];
            if (arg == "--help" || arg == "-h") return Status::kHelp;
            std::string value;
            const std::size_t eq = arg.find('=');
            const bool inline_value = eq != std::string::npos;
            if (inline_value) {
                value = arg.substr(eq + 1);
                arg.resize(eq);
            }
            Flag* flag = find(arg);
            if (flag == nullptr) {
                *error = "unknown flag '" + arg + "'";
                return Status::kError;
            }
            flag->given = true;
            if (flag->kind == Kind::kSwitch) {
                if (inline_value) {
                    *error = arg + " takes no value";
                    return Status::kError;
                }
                *flag->boolean = true;
                continue;
            }
            if (!inline_value) {
                if (a + 1 >= argc) {
                    *error = arg + " needs a value";
                    return Status::kError;
                }
                value = argv[++a];
            }
            if (flag->kind == Kind::kString) {
                if (value.empty()) {
                    *error = arg + " needs a non-empty value";
                    return Status::kError;
                }
                *flag->text = value;
                continue;
            }
            if (!parse_int(value, *flag, flag->integer)) {
                *error = arg + " needs " + flag->expects() + ", got '" + value + "'";
                return Status::kError;
            }
        }
        return Status::kOk;
    }

    // --help: usage on stdout, exit 0. A bad flag: the reason and usage on stderr, exit 2.
    // Standard output goes out line by line from here on, also into a pipe (`| tee`), where the
    // C library would otherwise hold it back until the program ends.
    void parse_or_exit(int argc, const char* const* argv) {
        std::setvbuf(stdout, nullptr, _IOLBF, 0);
        std::string error;
        switch (parse(argc, argv, &error)) {
            case Status::kOk:
                return;
            case Status::kHelp:
                std::fputs(usage().c_str(), stdout);
                std::exit(kExitOk);
            case Status::kError:
                usage_error(error);
        }
    }

    // Whether the last parse saw the flag on the command line: for a check between two flags whose
    // defaults are numbers (--displacement means something only with one --order).
    bool given(const std::string& name) const {
        const Flag* f = find(name);
        return f != nullptr && f->given;
    }

    // A value the parser cannot judge alone (two flags that contradict, an output folder that
    // cannot be made): the reason and usage on stderr, exit 2, as for a malformed flag.
    [[noreturn]] void usage_error(const std::string& error) const {
        std::fprintf(stderr, "%s: %s\n%s", program_.c_str(), error.c_str(), usage().c_str());
        std::exit(kExitUsage);
    }

    std::string usage() const {
        std::string text = "usage: " + program_ + " [flags]\n  " + summary_ + "\nflags:\n";
        for (const Flag& f : flags_) {
            std::string line = "  " + f.name;
            if (f.kind == Kind::kInt) line += f.named ? " <" + f.names() + ">" : " <int>";
            if (f.kind == Kind::kString) line += " <text>";
            line.resize(std::max<std::size_t>(line.size() + 1, 22), ' ');
            line += f.help;
            if (!f.unset.empty())
                line += " (default: " + f.unset + ")";
            else if (f.kind == Kind::kInt)
                line += " (default " + f.value_text(*f.integer) + ")";
            else if (f.kind == Kind::kString)
                line += " (default " + *f.text + ")";
            text += line + "\n";
        }
        return text + "  --help              this text\n";
    }

  private:
    enum class Kind { kInt, kSwitch, kString };
    struct Flag {
        std::string name;
        std::string help;
        Kind kind = Kind::kInt;
        std::int64_t* integer = nullptr;
        bool* boolean = nullptr;
        std::string* text = nullptr;
        std::int64_t min = 0, max = 0;
        std::vector<Name> choices;  // empty: any value in [min, max]
        bool named = false;         // add_enum: the names are what usage shows
        std::string unset;          // what an absent flag means, where no number says it
        bool given = false;         // on the command line of the last parse

        std::string names() const {
            std::string list;
            for (const Name& c : choices) list += (list.empty() ? "" : "|") + c.name;
            return list;
        }
        std::string value_text(std::int64_t v) const {
            for (const Name& c : choices)
                if (named && c.value == v) return c.name;
            return std::to_string(v);
        }
        std::string expects() const {
            if (choices.empty())
                return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
            std::string list;
            for (const Name& c : choices) {
                list += (list.empty() ? "" : ", ") + c.name;
                if (named && c.name != std::to_string(c.value))
                    list += " (" + std::to_string(c.value) + ")";
            }
            return "one of " + list;
        }
    };

    Flag& add(const char* name, const char* help, Kind kind, const char* unset) {
        flags_.emplace_back();
        Flag& f = flags_.back();
        f.name = name;
        f.help = help;
        f.kind = kind;
        if (unset != nullptr) f.unset = unset;
        return f;
    }

    const Flag* find(const std::string& name) const {
        for (const Flag& f : flags_)
            if (f.name == name) return &f;
        return nullptr;
    }
    Flag* find(const std::string& name) {
        return const_cast<Flag*>(static_cast<const Cli*>(this)->find(name));
    }

    // Whole-string decimal integer within [min, max] (or one of the choices, by name or number);
    // "12abc", "", "1e6" and overflow are errors.
    static bool parse_int(const std::string& s, const Flag& flag, std::int64_t* out) {
        for (const Name& c : flag.choices)
            if (flag.named && c.name == s) {
                *out = c.value;
                return true;
            }
        if (s.empty()) return false;
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(s.c_str(), &end, 10);
        if (errno != 0 || *end != '\0' || v < flag.min || v > flag.max) return false;
        if (!flag.choices.empty() && std::none_of(flag.choices.begin(), flag.choices.end(),
                                                  [v](const Name& c) { return c.value == v; }))
            return false;
        *out = v;
        return true;
    }

    std::string program_, summary_;
    std::vector<Flag> flags_;
};

// An output folder: created with its parents where missing (as mkdir -p). Returns false, with the
// reason in *error, where it cannot be created or is not a writable folder. Call it right after
// the flags, before any work.
inline bool make_output_dir(const std::string& path, std::string* error) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) {
        *error = "cannot create the folder '" + path + "': " + ec.message();
        return false;
    }
    if (!fs::is_directory(path, ec)) {
        *error = "'" + path + "' is not a folder";
        return false;
    }
    const fs::path probe = fs::path(path) / ".write-test";
    std::FILE* f = std::fopen(probe.string().c_str(), "wb");
    if (f == nullptr) {
        *error = "cannot write in the folder '" + path + "'";
        return false;
    }
    std::fclose(f);
    fs::remove(probe, ec);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Seeded inputs. SplitMix64 rather than <random>'s distributions, whose output differs between
// standard libraries: the same --seed gives the same input everywhere.

inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Uniform in [lo, hi): 24 random bits, so every value in [0, 1) is exact in float.
inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
    std::vector<float> v(n);
    std::uint64_t state = seed;
    for (float& x : v) {
        const float unit = static_cast<float>(splitmix64(state) >> 40) * 0x1.0p-24f;
        x = lo + (hi - lo) * unit;
    }
    return v;
}

// Uniform integers in [lo, hi].
inline std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
    std::vector<int> v(n);
    std::uint64_t state = seed;
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - lo + 1;
    for (int& x : v)
        x = static_cast<int>(lo + static_cast<std::int64_t>(splitmix64(state) % range));
    return v;
}

// ---------------------------------------------------------------------------------------------
// Verification

// An element passes when |got - want| <= abs + rel * |want|. Each program states why its numbers
// are what they are.
struct Tolerance {
    double abs = 0.0;
    double rel = 0.0;
};

// Compares got[0..n) with the reference want[0..n). NaN or Inf in got is always a mismatch. On
// failure prints the first mismatch (index, values), the count and the largest error to stderr.
template <class Got, class Want>
bool check_close(const char* what, const Got* got, const Want* want, std::size_t n, Tolerance tol) {
    std::size_t bad = 0, first = 0;
    double max_err = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double g = static_cast<double>(got[i]);
        const double w = static_cast<double>(want[i]);
        const double err = std::fabs(g - w);
        const bool ok = std::isfinite(g) && err <= tol.abs + tol.rel * std::fabs(w);
        if (std::isfinite(g)) max_err = std::max(max_err, err);
        if (!ok && bad++ == 0) first = i;
    }
    if (bad == 0) return true;
    const double g = static_cast<double>(got[first]);
    const double w = static_cast<double>(want[first]);
    std::fprintf(stderr,
                 "FAIL %s: first mismatch at index %zu: got %.9g, expected %.9g "
                 "(|error| %.3g, tolerance %.3g); %zu of %zu wrong; largest finite error %.3g\n",
                 what, first, g, w, std::fabs(g - w), tol.abs + tol.rel * std::fabs(w), bad, n,
                 max_err);
    return false;
}

// ---------------------------------------------------------------------------------------------
// Grading (homework/grader). An exercise's program is also built with common/grading.cpp: in a
// run the grader starts, that records every value the run reads back from the device for its
// checks and every time it measures, or replays them into the program as handed out, which then
// repeats its own checks on them. graded() hands it each such value; in every other build and
// run it does nothing, and grading() is false.
class GradingHook {
  public:
    // data[0..count), values of `size` bytes of one kind ('f' floating, 'i' signed, 'u' unsigned,
    // 'p' a device address, 'r' a struct of plain values): recorded, or overwritten by the replay.
    // Fails the run (kExitWrong, with its reason) where the replay's record does not hold what is
    // read here.
    virtual void exchange(const char* what, char kind, std::size_t size, void* data,
                          std::size_t count) = 0;
    // Whether the run replays a record (its read-back values are the recorded run's).
    virtual bool replaying() const = 0;

  protected:
    ~GradingHook() = default;
};

inline GradingHook*& grading_hook() {
    static GradingHook* hook = nullptr;
    return hook;
}
inline bool grading() {
    return grading_hook() != nullptr;
}
inline bool replaying() {
    return grading() && grading_hook()->replaying();
}

template <class T>
void graded(const char* what, T* data, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>, "a record holds plain values");
    GradingHook* hook = grading_hook();
    if (hook == nullptr) return;
    char kind = 'r';
    if constexpr (std::is_floating_point_v<T>) kind = 'f';
    if constexpr (std::is_integral_v<T>) kind = std::is_signed_v<T> ? 'i' : 'u';
    if constexpr (std::is_pointer_v<T>) kind = 'p';
    hook->exchange(what, kind, sizeof(T), data, count);
}
template <class T>
void graded(const char* what, std::vector<T>& values) {
    graded(what, values.data(), values.size());
}
template <class T>
void graded(const char* what, T& value) {
    graded(what, &value, 1);
}

// ---------------------------------------------------------------------------------------------
// Timing on the host (host-only programs). GPU programs use common::Timer in common.cuh.

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// The median of repeated timings, with the fastest and slowest: the spread says whether a
// difference between two medians is more than run-to-run noise.
struct TimeStats {
    double median = 0, min = 0, max = 0;
};

inline TimeStats time_stats(const std::vector<double>& v) {
    if (v.empty()) return {};
    return {median(v), *std::min_element(v.begin(), v.end()),
            *std::max_element(v.begin(), v.end())};
}

template <class F>
double host_median_ms(std::int64_t reps, F&& f) {
    f();  // warm-up: page faults and caches
    std::vector<double> ms;
    for (std::int64_t r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return median(ms);
}

// ---------------------------------------------------------------------------------------------
// Results: one line per measurement, or CSV with --csv. With --csv, the other text a program
// prints goes to stderr (text()), so stdout holds nothing but CSV.

struct Result {
    std::string program;
    std::string variant;  // kernel or configuration; may be empty
    std::int64_t n;
    double ms;         // median time
    double bytes;      // bytes the operation must move at least (each program says which)
    double peak_gbps;  // the device's peak memory bandwidth; 0 on the host
};

// One number as printf formats it, as a string: for a table cell that may hold "-" instead.
inline std::string format_number(const char* format, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

class Reporter {
  public:
    explicit Reporter(bool csv) : csv_(csv) {}

    std::FILE* text() const { return csv_ ? stderr : stdout; }

    void print(Result r) {
        // A graded run's times are part of its record: the grader holds them to a budget.
        graded(("time " + r.program + " " + r.variant).c_str(), r.ms);
        const double gbps = r.bytes / (r.ms * 1e6);
        const double pct = r.peak_gbps > 0 ? 100.0 * gbps / r.peak_gbps : 0.0;
        if (csv_) {
            if (!header_done_) std::puts("program,variant,n,ms,gb_per_s,pct_of_peak");
            header_done_ = true;
            std::printf("%s,%s,%" PRId64 ",%.6f,%.2f,%.2f\n", r.program.c_str(), r.variant.c_str(),
                        r.n, r.ms, gbps, pct);
            return;
        }
        std::string name = r.program + (r.variant.empty() ? "" : " " + r.variant);
        std::printf("%-40s n=%-11" PRId64 " %10.4f ms %9.1f GB/s", name.c_str(), r.n, r.ms, gbps);
        if (r.peak_gbps > 0) std::printf("  %5.1f%% of peak %.0f GB/s", pct, r.peak_gbps);
        std::printf("\n");
    }

  private:
    bool csv_;
    bool header_done_ = false;
};

}  // namespace common
