// common_test: the shared helpers checked on the host (no GPU needed).
// The flag parser's verdicts, check_close's tolerance and its NaN/Inf rule, the seeded inputs and
// the median and spread, require_gpu()'s skip/fail verdicts, graded() outside a graded run.
// Each program's <name>/usage, <name>/bad_value and <name>/bad_<flags> tests (add_example's
// BAD_ARGS) check the exit code 2 itself.
#include <limits>
#include <random>

#include "common.h"

static int failures = 0;

#define EXPECT(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::fprintf(stderr, "%s:%d: EXPECT(%s) failed\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)

using common::Cli;

static Cli::Status parse(std::vector<const char*> args, common::Options* opt,
                         bool* flag = nullptr) {
    Cli cli("common_test", "parser under test");
    cli.add_standard(*opt, 1, 1000);
    bool unused = false;
    cli.add_flag("--verbose", flag ? flag : &unused, "a program-specific flag");
    args.insert(args.begin(), "common_test");
    std::string error;
    return cli.parse(static_cast<int>(args.size()), args.data(), &error);
}

static void test_cli() {
    using S = Cli::Status;
    common::Options opt;
    EXPECT(parse({}, &opt) == S::kOk);
    EXPECT(parse({"--n", "17", "--seed=9", "--reps", "3", "--csv"}, &opt) == S::kOk);
    EXPECT(opt.n == 17 && opt.seed == 9 && opt.reps == 3 && opt.csv);
    bool verbose = false;
    EXPECT(parse({"--verbose"}, &opt, &verbose) == S::kOk && verbose);
    EXPECT(parse({"--help"}, &opt) == S::kHelp);
    EXPECT(parse({"--n", "5", "-h"}, &opt) == S::kHelp);
    // Everything below is a usage error (exit 2 through parse_or_exit).
    EXPECT(parse({"--bogus"}, &opt) == S::kError);
    EXPECT(parse({"n"}, &opt) == S::kError);
    EXPECT(parse({"--n"}, &opt) == S::kError);           // missing value
    EXPECT(parse({"--n", "abc"}, &opt) == S::kError);    // not a number
    EXPECT(parse({"--n", "12abc"}, &opt) == S::kError);  // trailing garbage
    EXPECT(parse({"--n", "1e3"}, &opt) == S::kError);    // no floating-point notation
    EXPECT(parse({"--n", ""}, &opt) == S::kError);
    EXPECT(parse({"--n", "0"}, &opt) == S::kError);     // below the program's minimum
    EXPECT(parse({"--n", "1001"}, &opt) == S::kError);  // above the program's maximum
    EXPECT(parse({"--n", "-5"}, &opt) == S::kError);
    EXPECT(parse({"--n", "99999999999999999999999"}, &opt) == S::kError);  // overflow
    EXPECT(parse({"--reps", "0"}, &opt) == S::kError);
    EXPECT(parse({"--csv=yes"}, &opt) == S::kError);  // a switch takes no value
    std::int64_t factor = 4;
    Cli choice("common_test", "choices");
    choice.add_choice("--factor", &factor, {1, 2, 4, 8}, "a power of two");
    std::string error;
    const char* eight[] = {"common_test", "--factor", "8"};
    EXPECT(choice.parse(3, eight, &error) == S::kOk && factor == 8);
    const char* three[] = {"common_test", "--factor", "3"};
    EXPECT(choice.parse(3, three, &error) == S::kError &&
           error.find("one of 1, 2, 4, 8") != std::string::npos);
    Cli cli("common_test", "usage text");
    cli.add_standard(opt, 1, 10);
    EXPECT(cli.usage().find("--n <int>") != std::string::npos);

    // Enumerated flags take the names a user types and their numbers, nothing else.
    std::int64_t order = 0;
    Cli named("common_test", "named choices");
    named.add_enum("--order", &order, {{"sorted", 0}, {"partial", 1}, {"random", 2}}, "key order");
    const char* by_name[] = {"common_test", "--order", "random"};
    EXPECT(named.parse(3, by_name, &error) == S::kOk && order == 2);
    const char* by_number[] = {"common_test", "--order=1"};
    EXPECT(named.parse(2, by_number, &error) == S::kOk && order == 1);
    const char* wrong_name[] = {"common_test", "--order", "Sorted"};
    EXPECT(named.parse(3, wrong_name, &error) == S::kError &&
           error.find("one of sorted (0), partial (1), random (2)") != std::string::npos);
    const char* wrong_number[] = {"common_test", "--order", "3"};
    EXPECT(named.parse(3, wrong_number, &error) == S::kError);
    EXPECT(named.usage().find("--order <sorted|partial|random>") != std::string::npos);
    EXPECT(named.usage().find("(default partial)") != std::string::npos);

    // A flag whose absence means something no number says: refused outside its range, and usage
    // says what its absence means.
    std::int64_t width = 0;
    Cli optional("common_test", "optional");
    optional.add_int("--width", &width, 1, 100, "image width", "--n");
    const char* zero[] = {"common_test", "--width", "0"};
    EXPECT(optional.parse(3, zero, &error) == S::kError &&
           error.find("an integer in [1, 100]") != std::string::npos && width == 0);
    EXPECT(optional.usage().find("(default: --n)") != std::string::npos);

    // Text flags: any non-empty value.
    std::string path = ".";
    Cli text("common_test", "text");
    text.add_string("--out-dir", &path, "output folder");
    const char* dir[] = {"common_test", "--out-dir", "a b/c"};
    EXPECT(text.parse(3, dir, &error) == S::kOk && path == "a b/c");
    const char* empty[] = {"common_test", "--out-dir="};
    EXPECT(text.parse(2, empty, &error) == S::kError);
    const char* missing[] = {"common_test", "--out-dir"};
    EXPECT(text.parse(2, missing, &error) == S::kError);
    EXPECT(text.usage().find("--out-dir <text>") != std::string::npos);

    // given(): which flags the last parse saw, whatever their values.
    std::int64_t displacement = 32;
    Cli cross("common_test", "cross-flag checks");
    cross.add_int("--displacement", &displacement, 1, 100, "a flag with a numeric default");
    cross.add_enum("--order", &order, {{"sorted", 0}, {"partial", 1}}, "key order");
    const char* explicit_default[] = {"common_test", "--displacement", "32"};
    EXPECT(cross.parse(3, explicit_default, &error) == S::kOk && cross.given("--displacement") &&
           !cross.given("--order") && !cross.given("--no-such-flag"));
    const char* other[] = {"common_test", "--order=sorted"};
    EXPECT(cross.parse(2, other, &error) == S::kOk && !cross.given("--displacement") &&
           cross.given("--order"));

    // An enumeration whose names are numbers lists each once; its other names as usual.
    std::int64_t load = 0;
    Cli loads("common_test", "numbers as names");
    loads.add_enum("--load", &load, {{"50", 50}, {"80", 80}, {"both", 0}}, "load factor");
    const char* both[] = {"common_test", "--load", "both"};
    EXPECT(loads.parse(3, both, &error) == S::kOk && load == 0);
    const char* eighty[] = {"common_test", "--load", "80"};
    EXPECT(loads.parse(3, eighty, &error) == S::kOk && load == 80);
    const char* seventy[] = {"common_test", "--load", "70"};
    EXPECT(loads.parse(3, seventy, &error) == S::kError &&
           error.find("one of 50, 80, both (0), got '70'") != std::string::npos);

    // The standard flags one by one: a program without random input has no --seed, and --n may
    // have a meaning when absent that no number says.
    common::Options some;
    some.n = 0;
    Cli subset("common_test", "no seed");
    subset.add_n(some, 1, 64, "an extra size", "none");
    subset.add_csv(some);
    const char* seed[] = {"common_test", "--seed", "3"};
    EXPECT(subset.parse(3, seed, &error) == S::kError &&
           error.find("unknown flag '--seed'") != std::string::npos);
    const char* n_zero[] = {"common_test", "--n", "0"};
    EXPECT(subset.parse(3, n_zero, &error) == S::kError && some.n == 0);
    EXPECT(subset.usage().find("an extra size (default: none)") != std::string::npos &&
           subset.usage().find("--reps") == std::string::npos);
}

// make_output_dir: missing parents created, a file in the way or an unwritable place refused.
static void test_output_dir() {
    namespace fs = std::filesystem;
    const fs::path base =
        fs::temp_directory_path() / ("common_test_dir_" + std::to_string(std::random_device{}()));
    std::error_code ec;
    fs::remove_all(base, ec);
    std::string error;
    EXPECT(common::make_output_dir((base / "a b" / "c").string(), &error));
    EXPECT(fs::is_directory(base / "a b" / "c"));
    EXPECT(common::make_output_dir((base / "a b" / "c").string(), &error));  // exists: fine
    std::FILE* f = std::fopen((base / "file").string().c_str(), "w");
    EXPECT(f != nullptr);
    if (f) std::fclose(f);
    EXPECT(!common::make_output_dir((base / "file").string(), &error));
    EXPECT(!common::make_output_dir((base / "file" / "sub").string(), &error) &&
           error.find("cannot create") != std::string::npos);
    fs::remove_all(base, ec);
}

static void test_check_close() {
    const double want[] = {1.0, 2.0, 3.0};
    const float exact[] = {1.0f, 2.0f, 3.0f};
    EXPECT(common::check_close("exact", exact, want, 3, {}));
    const float near[] = {1.0f, 2.0f, 3.001f};
    EXPECT(common::check_close("rel 1e-3", near, want, 3, {0.0, 1e-3}));
    EXPECT(!common::check_close("rel 1e-4 (expected FAIL)", near, want, 3, {0.0, 1e-4}));
    EXPECT(common::check_close("abs 2e-3", near, want, 3, {2e-3, 0.0}));
    const float nan[] = {1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
    EXPECT(!common::check_close("NaN (expected FAIL)", nan, want, 3, {1e30, 1e30}));
    const float inf[] = {1.0f, 2.0f, std::numeric_limits<float>::infinity()};
    EXPECT(!common::check_close("Inf (expected FAIL)", inf, want, 3, {1e30, 1e30}));
    const int ints[] = {4, 5};
    const int ints_want[] = {4, 6};
    EXPECT(!common::check_close("int (expected FAIL)", ints, ints_want, 2, {}));
    EXPECT(common::check_close("empty", exact, want, 0, {}));
}

static void test_random() {
    const auto a = common::random_floats(1000, 7, 0.0f, 1.0f);
    const auto b = common::random_floats(1000, 7, 0.0f, 1.0f);
    const auto c = common::random_floats(1000, 8, 0.0f, 1.0f);
    EXPECT(a == b);
    EXPECT(a != c);
    EXPECT(*std::min_element(a.begin(), a.end()) >= 0.0f);
    EXPECT(*std::max_element(a.begin(), a.end()) < 1.0f);
    // The same seed gives the same numbers on every platform: pin the first value.
    EXPECT(a[0] == 0x1.8f2f84p-2f);
    const auto ints = common::random_ints(10000, 3, -2, 2);
    EXPECT(*std::min_element(ints.begin(), ints.end()) == -2);
    EXPECT(*std::max_element(ints.begin(), ints.end()) == 2);
}

static void test_median() {
    EXPECT(common::median({3.0, 1.0, 2.0}) == 2.0);
    EXPECT(common::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
}

// require_gpu()'s verdicts for what the runtime can report (the no-driver case is also what this
// test's own machine shows when it has no GPU: GPU programs exit 77 there).
static void test_gpu_query() {
    std::string why;
    using common::GpuQuery;
    EXPECT(common::classify_gpu_query(GpuQuery{true, false, "cudaSuccess", 1, 13000, 13000},
                                      &why) == common::kExitOk);
    EXPECT(common::classify_gpu_query(GpuQuery{true, false, "cudaSuccess", 0, 13000, 13000},
                                      &why) == common::kExitSkip);
    EXPECT(common::classify_gpu_query(GpuQuery{false, true, "cudaErrorNoDevice", 0, 13000, 13000},
                                      &why) == common::kExitSkip);
    // No driver at all: the runtime says "insufficient driver", the driver version is 0.
    EXPECT(common::classify_gpu_query(
               GpuQuery{false, false, "cudaErrorInsufficientDriver", 0, 0, 13000}, &why) ==
           common::kExitSkip);
    // A driver older than the runtime: a failure that says so.
    EXPECT(common::classify_gpu_query(
               GpuQuery{false, false, "cudaErrorInsufficientDriver", 0, 12020, 13000}, &why) ==
           common::kExitWrong);
    EXPECT(why.find("12.2") != std::string::npos && why.find("13.0") != std::string::npos);
    // Anything else with a driver present is a failure too.
    EXPECT(common::classify_gpu_query(
               GpuQuery{false, false, "cudaErrorDevicesUnavailable", 0, 13000, 13000}, &why) ==
           common::kExitWrong);
}

static void test_time_stats() {
    const common::TimeStats t = common::time_stats({3.0, 1.0, 2.0, 9.0});
    EXPECT(t.median == 2.5 && t.min == 1.0 && t.max == 9.0);
}

// Outside a graded run (no common/grading.cpp, or no grader) graded() leaves every value alone.
static void test_graded_outside_grading() {
    std::vector<float> values = {1.5f, -2.0f};
    double ms = 0.25;
    EXPECT(!common::grading());
    common::graded("device data", values);
    common::graded("time p v", ms);
    EXPECT(values[0] == 1.5f && values[1] == -2.0f && ms == 0.25);
}

int main() {
    test_cli();
    test_output_dir();
    test_gpu_query();
    test_time_stats();
    test_check_close();
    test_random();
    test_median();
    test_graded_outside_grading();
    std::printf("common_test: %s (%d failed expectations)\n", failures ? "FAILED" : "passed",
                failures);
    return failures ? common::kExitWrong : common::kExitOk;
}
