// cuco_static_map.cu: cuCollections' static_map for A99_benchmark (see cuco_static_map.h). Compiled
// only with -DCUCO_DIR; includes nothing of the repository but common.cuh (which includes no CCCL
// header) and its own header.
#include "cuco_static_map.h"

#include <cstdio>
#include <string>

#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>
#include <cuco/static_map.cuh>
#include <cuda/std/version>

#include "common.cuh"

namespace atomics {

namespace {
constexpr unsigned int kCucoEmpty = 0xffffffffu;  // device_table.h's kEmptyKey and kNotFound
using Map = cuco::static_map<unsigned int, unsigned int>;
}  // namespace

struct CucoStaticMap::Impl {
    Map map;
};

CucoStaticMap::CucoStaticMap(std::size_t capacity)
    : impl_(new Impl{Map(capacity, cuco::empty_key<unsigned int>{kCucoEmpty},
                         cuco::empty_value<unsigned int>{kCucoEmpty})}) {}

CucoStaticMap::~CucoStaticMap() = default;

std::size_t CucoStaticMap::capacity() const {
    return impl_->map.capacity();
}

void CucoStaticMap::insert(const unsigned int* keys, const unsigned int* values, std::size_t n) {
    impl_->map.clear_async();
    const auto pairs = thrust::make_zip_iterator(thrust::make_tuple(keys, values));
    impl_->map.insert_async(pairs, pairs + n);
    CUDA_CHECK_LAUNCH();
}

void CucoStaticMap::find(const unsigned int* queries, std::size_t n, unsigned int* out) const {
    impl_->map.find_async(queries, queries + n, out);
    CUDA_CHECK_LAUNCH();
}

std::size_t CucoStaticMap::size() const {
    return impl_->map.size();
}

const char* cuco_build_description() {
    static const std::string text = "cuco static_map, CCCL " + std::to_string(CCCL_MAJOR_VERSION) +
                                    "." + std::to_string(CCCL_MINOR_VERSION) + "." +
                                    std::to_string(CCCL_PATCH_VERSION);
    return text.c_str();
}

}  // namespace atomics
