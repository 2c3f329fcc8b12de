// grading.cpp: built into every exercise's program (add_example's HOMEWORK), and into nothing else.
// With HOMEWORK_RECORD=<file> (or fd:<n>, a descriptor the grader opened) the run records every
// value it hands graded(); with HOMEWORK_REPLAY=<file> (or fd:<n>) each of those calls takes its
// values from the record instead (grading.h). The grader records a run of the program built with
// the student's files and replays the record into the program built from the homework tree alone,
// whose checks then decide. A replay also prints every launch time it reads back ("launch ms"),
// one line each on stderr, for the grader's time budget: the program as handed out prints them,
// not the student's.
//
// With HOMEWORK_BATCH the process makes several runs, one after another, so that a class's runs
// do not each pay for a new CUDA context (a class's costliest step): add_example renames the
// exercise's main() to homework_program_main(), and main() below calls it once a run. The
// variable's first line is "<status fd> record" or "<status fd> replay"; each further line is a
// run, "<stdout fd> <stderr fd> <record fd> <argument>..." (arguments without spaces). Each run
// writes its output to its own descriptors and records to (or replays from) its own; when it
// returns, "<run> <exit status>" goes to the status descriptor. A run that ends the process
// (exit(), a crash, the time limit) ends the batch: the grader makes the rest one process each.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#if defined(__unix__)
#include <fcntl.h>
#include <unistd.h>
#endif

#include "common.h"
#include "grading.h"

int homework_program_main(int argc, char** argv);  // the exercise's main() (add_example)

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

    bool replaying() const override { return tape.mode() == common::GradingTape::Mode::kReplay; }

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

#if defined(__unix__)
namespace {

// A broken batch is the grader's bug, not the student's: no run of it counts.
[[noreturn]] void batch_error(const char* what) {
    std::fprintf(stderr, "FAIL grading batch: %s\n", what);
    std::fflush(stderr);
    std::_Exit(common::kExitWrong);
}

// A replayed run that ends the process (exit()) must still have read its whole record.
bool replaying = false;
void check_batch_replay_at_end() {
    if (replaying) check_replay_at_end();
}

int run_batch(const char* program, const char* spec) {
    std::istringstream lines(spec);
    std::string line, mode;
    int status = -1;
    if (!std::getline(lines, line) || !(std::istringstream(line) >> status >> mode) || status < 0 ||
        (mode != "record" && mode != "replay"))
        batch_error("the first line is not '<status fd> record|replay'");
    const int quiet = open("/dev/null", O_WRONLY);
    if (quiet < 0) batch_error("cannot open /dev/null");
    std::atexit(check_batch_replay_at_end);
    for (std::size_t run = 0; std::getline(lines, line); ++run) {
        std::istringstream fields(line);
        int out = -1, err = -1, tape = -1;
        if (!(fields >> out >> err >> tape) || out < 0 || err < 0 || tape < 0)
            batch_error("a run's line does not start with three descriptors");
        std::vector<std::string> args{program};
        for (std::string arg; fields >> arg;) args.push_back(arg);
        std::vector<char*> argv;
        for (std::string& arg : args) argv.push_back(&arg[0]);
        argv.push_back(nullptr);

        std::fflush(stdout);
        std::fflush(stderr);
        if (dup2(out, 1) < 0 || dup2(err, 2) < 0) batch_error("cannot take a run's output");
        ::close(out);
        ::close(err);
        std::string error;
        const std::string where = "fd:" + std::to_string(tape);
        const bool opened = mode == "record" ? hook().tape.open_record(where, &error)
                                             : hook().tape.open_replay(where, &error);
        int code = common::kExitWrong;
        if (!opened) {
            std::fprintf(stderr, "FAIL grading record: %s\n", error.c_str());
        } else {
            common::grading_hook() = &hook();
            replaying = mode == "replay";
            code = homework_program_main(static_cast<int>(args.size()), argv.data());
            replaying = false;
            if (mode == "replay" && !hook().tape.at_end()) {
                std::fprintf(stderr,
                             "FAIL grading record: it holds more than the %zu entries this run "
                             "read\n",
                             hook().tape.entries());
                code = common::kExitWrong;
            }
        }
        common::grading_hook() = nullptr;
        hook().tape.close();  // the grader sees the record's end
        std::fflush(stdout);
        std::fflush(stderr);
        dup2(quiet, 1);  // and the output's
        dup2(quiet, 2);
        const std::string done = std::to_string(run) + " " + std::to_string(code) + "\n";
        if (write(status, done.data(), done.size()) != static_cast<ssize_t>(done.size()))
            batch_error("cannot write the status");
    }
    return common::kExitOk;
}

}  // namespace
#endif

int main(int argc, char** argv) {
#if defined(__unix__)
    if (const char* batch = std::getenv("HOMEWORK_BATCH")) return run_batch(argv[0], batch);
#endif
    return homework_program_main(argc, argv);
}
