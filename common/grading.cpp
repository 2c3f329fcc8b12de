// grading.cpp: built into every exercise's program (add_example's HOMEWORK), and into nothing else.
// With HOMEWORK_RECORD=<file> (or fd:<n>, a descriptor the grader opened) the run records every
// value it hands graded(); with HOMEWORK_REPLAY=<file> (or fd:<n>) each of those calls takes its
// values from the record instead (grading.h). The grader records a run of the program built with
// the student's files and replays the record into the program built from the homework tree alone,
// whose checks then decide. A replay also prints every launch time it reads back ("launch ms"),
// one line each on stderr, for the grader's time budget: the program as handed out prints them,
// not the student's.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common.h"
#include "grading.h"

namespace {

class TapeHook final : public common::GradingHook {
  public:
    void exchange(const char* what, char kind, std::size_t size, void* data,
                  std::size_t count) override {
        std::string error;
        if (!tape.exchange(what, kind, size, data, count, &error)) {
            std::fprintf(stderr, "FAIL grading record: %s\n", error.c_str());
            std::fflush(stderr);
            std::_Exit(common::kExitWrong);
        }
        if (tape.mode() == common::GradingTape::Mode::kReplay && kind == 'f' &&
            size == sizeof(double) && std::string(what) == "launch ms") {
            for (std::size_t i = 0; i < count; ++i)
                std::fprintf(stderr, "graded launch: %.9g ms\n", static_cast<double*>(data)[i]);
        }
    }

    common::GradingTape tape;
};

TapeHook& hook() {
    static TapeHook instance;
    return instance;
}

// A record with entries the program never read is not the record of this run.
void check_replay_at_end() {
    if (hook().tape.at_end()) return;
    std::fprintf(stderr, "FAIL grading record: it holds more than the %zu entries this run read\n",
                 hook().tape.entries());
    std::fflush(stderr);
    std::_Exit(common::kExitWrong);
}

bool install() {
    const char* record = std::getenv("HOMEWORK_RECORD");
    const char* replay = std::getenv("HOMEWORK_REPLAY");
    if (record == nullptr && replay == nullptr) return false;
    std::string error;
    bool ok = false;
    if (record != nullptr && replay != nullptr) {
        error = "HOMEWORK_RECORD and HOMEWORK_REPLAY are both set";
    } else if (record != nullptr) {
        ok = hook().tape.open_record(record, &error);
    } else {
        ok = hook().tape.open_replay(replay, &error);
        if (ok) std::atexit(check_replay_at_end);
    }
    if (!ok) {
        std::fprintf(stderr, "FAIL grading record: %s\n", error.c_str());
        std::exit(common::kExitWrong);
    }
    common::grading_hook() = &hook();
    return true;
}

// Before main: the program's first graded() call already finds the tape.
[[maybe_unused]] const bool installed = install();

}  // namespace
