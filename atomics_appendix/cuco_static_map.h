// cuco_static_map.h: cuCollections' static_map behind an interface that names no cuco or CCCL
// type, for A99_benchmark. Built only where CMake is given -DCUCO_DIR (atomics_appendix's
// CMakeLists.txt); cuco_static_map.cu is then compiled on its own, with the CCCL that cuco needs
// (-DCUCO_CCCL_DIR), which may differ from the toolkit's that the rest of A99 uses: nothing of
// either crosses this header.
#pragma once

#include <cstddef>
#include <memory>

namespace atomics {

// cuco::static_map<unsigned int, unsigned int> with cuco's defaults (linear probing in groups of
// 4 threads, xxhash_32), empty key and empty value 0xffffffff (kEmptyKey, kNotFound).
class CucoStaticMap {
  public:
    // At least `capacity` slots; cuco rounds up (capacity()).
    explicit CucoStaticMap(std::size_t capacity);
    ~CucoStaticMap();
    CucoStaticMap(const CucoStaticMap&) = delete;
    CucoStaticMap& operator=(const CucoStaticMap&) = delete;

    std::size_t capacity() const;
    // Empties the map, then inserts the pairs (keys[i], values[i]), asynchronously on the
    // default stream. A key given twice is inserted once, with one of its values.
    void insert(const unsigned int* keys, const unsigned int* values, std::size_t n);
    // out[i]: the value of queries[i], or 0xffffffff where it is absent; asynchronous.
    void find(const unsigned int* queries, std::size_t n, unsigned int* out) const;
    // Keys in the map (waits for the default stream).
    std::size_t size() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The cuco and CCCL versions this was compiled with, for the benchmark's header line.
const char* cuco_build_description();

}  // namespace atomics
