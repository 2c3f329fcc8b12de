// grading.h: the record of a graded run and its replay (homework/grader), for grading.cpp and its
// test. Only an exercise's program is built with it; nothing a reader copies includes it.
//
// A record is a file (or a pipe) the grader hands the program: a magic line, then one entry per
// graded() call in the order the run made them: its label, the values' kind and size, their
// count and the values. A replay reads each entry back where the program as handed out makes the
// same call, and refuses one that is missing, short, malformed or not what the program reads at
// that point.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace common {

class GradingTape {
  public:
    enum class Mode { kOff, kRecord, kReplay };

    GradingTape() = default;
    GradingTape(const GradingTape&) = delete;
    GradingTape& operator=(const GradingTape&) = delete;
    ~GradingTape() { close(); }

    // `where` is a path, or fd:<n> for a descriptor the grader opened (which a program running
    // as another user could not open itself).
    bool open_record(const std::string& where, std::string* error) {
        file_ = open(where, "wb");
        if (file_ == nullptr) {
            *error = "cannot write the record '" + where + "'";
            return false;
        }
        mode_ = Mode::kRecord;
        return write(kMagic, sizeof kMagic - 1, error) && flush(error);
    }
    bool open_replay(const std::string& where, std::string* error) {
        file_ = open(where, "rb");
        char magic[sizeof kMagic - 1];
        if (file_ == nullptr || std::fread(magic, 1, sizeof magic, file_) != sizeof magic ||
            std::memcmp(magic, kMagic, sizeof magic) != 0) {
            *error = "'" + where + "' is not a record of a graded run";
            return false;
        }
        mode_ = Mode::kReplay;
        return true;
    }
    // Closes the record (a grader reading a pipe then sees its end) and forgets it: the tape can
    // open the next run's (a batch of runs in one process, grading.cpp).
    void close() {
        if (file_ != nullptr) std::fclose(file_);
        file_ = nullptr;
        mode_ = Mode::kOff;
        entries_ = 0;
    }
    Mode mode() const { return mode_; }
    std::size_t entries() const { return entries_; }
    // Replay: whether every entry of the record has been read.
    bool at_end() { return mode_ != Mode::kReplay || std::fgetc(file_) == EOF; }

    // Record: appends data[0..count). Replay: overwrites it with the next entry, which must carry
    // the same label and hold `count` values of that kind and size.
    bool exchange(const char* what, char kind, std::size_t size, void* data, std::size_t count,
                  std::string* error) {
        const std::uint32_t label_size = static_cast<std::uint32_t>(std::strlen(what));
        const std::uint8_t kind_byte = static_cast<std::uint8_t>(kind);
        const std::uint32_t value_size = static_cast<std::uint32_t>(size);
        const std::uint64_t n = count;
        ++entries_;
        if (mode_ == Mode::kRecord) {
            const bool ok = write(&label_size, sizeof label_size, error) &&
                            write(what, label_size, error) && write(&kind_byte, 1, error) &&
                            write(&value_size, sizeof value_size, error) &&
                            write(&n, sizeof n, error) && write(data, count * size, error);
            return ok && flush(error);
        }
        std::uint32_t got_label_size = 0, got_size = 0;
        std::uint8_t got_kind = 0;
        std::uint64_t got_n = 0;
        std::string label;
        const std::string entry = "entry " + std::to_string(entries_);
        if (std::fread(&got_label_size, sizeof got_label_size, 1, file_) != 1) {
            *error = "the record ends before " + entry + " ('" + what +
                     "'): the graded run stopped before it read that";
            return false;
        }
        label.resize(got_label_size < 4096 ? got_label_size : 0);
        if (got_label_size >= 4096 ||
            std::fread(&label[0], 1, label.size(), file_) != label.size() ||
            std::fread(&got_kind, 1, 1, file_) != 1 ||
            std::fread(&got_size, sizeof got_size, 1, file_) != 1 ||
            std::fread(&got_n, sizeof got_n, 1, file_) != 1) {
            *error = "the record is malformed at " + entry;
            return false;
        }
        if (label != what || got_kind != kind_byte || got_size != value_size || got_n != n) {
            *error = entry + " of the record is '" + label + "' (" + std::to_string(got_n) +
                     " values of " + std::to_string(got_size) +
                     " bytes), where the program reads '" + what + "' (" + std::to_string(n) +
                     " values of " + std::to_string(value_size) + " bytes)";
            return false;
        }
        if (count > 0 && std::fread(data, size, count, file_) != count) {
            *error = "the record ends inside " + entry + " ('" + what + "')";
            return false;
        }
        return true;
    }

  private:
    static constexpr char kMagic[] = "PMPP-HOMEWORK-RECORD 2\n";

    static std::FILE* open(const std::string& where, const char* mode) {
        if (where.rfind("fd:", 0) != 0) return std::fopen(where.c_str(), mode);
        char* end = nullptr;
        const long fd = std::strtol(where.c_str() + 3, &end, 10);
        if (*end != '\0' || fd < 0) return nullptr;
#ifdef _WIN32
        return _fdopen(static_cast<int>(fd), mode);
#else
        return fdopen(static_cast<int>(fd), mode);
#endif
    }
    bool write(const void* data, std::size_t bytes, std::string* error) {
        if (bytes == 0 || std::fwrite(data, 1, bytes, file_) == bytes) return true;
        *error = "cannot write the record";
        return false;
    }
    bool flush(std::string* error) {
        if (std::fflush(file_) == 0) return true;
        *error = "cannot write the record";
        return false;
    }

    Mode mode_ = Mode::kOff;
    std::FILE* file_ = nullptr;
    std::size_t entries_ = 0;
};

}  // namespace common
