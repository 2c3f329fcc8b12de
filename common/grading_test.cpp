// grading_test: the grading record (grading.h) on the host: what a recording run writes, a replay
// reads back into its own variables; a record that ends early, names another read, holds another
// count or kind, or is not a record at all is refused with the reason.
#include <filesystem>
#include <random>
#include <vector>

#include "common.h"
#include "grading.h"

static int failures = 0;

#define EXPECT(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::fprintf(stderr, "%s:%d: EXPECT(%s) failed\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)

template <class T>
static bool put(common::GradingTape& tape, const char* what, T* data, std::size_t count,
                std::string* error) {
    const char kind = std::is_floating_point_v<T> ? 'f' : std::is_signed_v<T> ? 'i' : 'u';
    return tape.exchange(what, kind, sizeof(T), data, count, error);
}

int main() {
    namespace fs = std::filesystem;
    const fs::path file =
        fs::temp_directory_path() / ("grading_test_" + std::to_string(std::random_device{}()));
    std::string error;
    std::vector<float> got = {1.5f, -2.0f, 3.25f};
    unsigned int blocks = 489;
    double ms = 0.125;
    {
        common::GradingTape tape;
        EXPECT(tape.open_record(file.string(), &error));
        EXPECT(put(tape, "device data", got.data(), got.size(), &error));
        EXPECT(put(tape, "blocks", &blocks, 1, &error));
        EXPECT(put(tape, "time p v", &ms, 1, &error));
    }
    {
        common::GradingTape tape;  // a full replay: the values come back, nothing is left
        std::vector<float> mine(3, 0.0f);
        unsigned int my_blocks = 1;
        double my_ms = 0;
        EXPECT(tape.open_replay(file.string(), &error));
        EXPECT(put(tape, "device data", mine.data(), mine.size(), &error) && mine == got);
        EXPECT(put(tape, "blocks", &my_blocks, 1, &error) && my_blocks == 489);
        EXPECT(put(tape, "time p v", &my_ms, 1, &error) && my_ms == 0.125);
        EXPECT(tape.at_end());
        EXPECT(!put(tape, "device data", mine.data(), mine.size(), &error) &&
               error.find("ends before entry 4") != std::string::npos);
    }
    {
        common::GradingTape tape;  // another count, another label, another kind
        std::vector<float> two(2);
        EXPECT(tape.open_replay(file.string(), &error));
        EXPECT(!put(tape, "device data", two.data(), two.size(), &error) &&
               error.find("where the program reads 'device data' (2 values") != std::string::npos);
    }
    {
        common::GradingTape tape;
        std::vector<float> three(3);
        EXPECT(tape.open_replay(file.string(), &error));
        EXPECT(!put(tape, "output", three.data(), three.size(), &error));
    }
    {
        common::GradingTape tape;
        std::vector<int> three(3);
        EXPECT(tape.open_replay(file.string(), &error));
        EXPECT(!put(tape, "device data", three.data(), three.size(), &error));
    }
    {
        common::GradingTape tape;  // entries left over
        std::vector<float> mine(3);
        EXPECT(tape.open_replay(file.string(), &error));
        EXPECT(put(tape, "device data", mine.data(), mine.size(), &error));
        EXPECT(!tape.at_end());
    }
    // A record cut short, and a file that is no record.
    const auto size = fs::file_size(file);
    fs::resize_file(file, size - 40);  // inside the second entry
    {
        common::GradingTape tape;
        std::vector<float> mine(3);
        unsigned int b = 0;
        EXPECT(tape.open_replay(file.string(), &error));
        EXPECT(put(tape, "device data", mine.data(), mine.size(), &error));
        EXPECT(!put(tape, "blocks", &b, 1, &error));
    }
    std::FILE* f = std::fopen(file.string().c_str(), "w");
    if (f) {
        std::fputs("FAIL nothing\n", f);
        std::fclose(f);
    }
    {
        common::GradingTape tape;
        EXPECT(!tape.open_replay(file.string(), &error) &&
               error.find("not a record") != std::string::npos);
    }
    std::error_code ec;
    fs::remove(file, ec);
    std::printf("grading_test: %s (%d failed expectations)\n", failures ? "FAILED" : "passed",
                failures);
    return failures ? common::kExitWrong : common::kExitOk;
}
