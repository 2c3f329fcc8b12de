// open_slots.h: the slot format and the hash of the open-addressing tables (A5, A6), the one header
// their kernels need besides device_table.h, so that either can be copied without the other's file.
//
// A slot is 8 bytes, the key in the high half and the value in the low half, so one 64-bit CAS
// claims the slot for its key and writes the value with it. kEmptySlot (all bits set: key
// kEmptyKey) marks an empty slot. The home slot of a key is MurmurHash3's 32-bit finaliser of it,
// modulo the slots (cuco offers the same hash as cuco::murmurhash3_fmix_32). The hash has 32 bits,
// so a table holds at most 2^32 slots (A6: buckets): in a larger one no key's home would lie past
// 2^32, and the slots beyond would be reached only by probing.
//
// A duplicate key: the inserts keep the smaller packed word, fetch_min on the slot. Both words hold
// the same key, so that keeps the *smallest value* among the key's occurrences. The programs store
// each key's index in the input as its value, so the smallest value is the first occurrence's;
// with values of your own it is not (see A5_open_addressing_hash_table.cu, "What a copy ...").
#pragma once

#include "device_table.h"

namespace atomics {

constexpr unsigned long long kEmptySlot = ~0ull;  // key kEmptyKey, value 0xffffffff
constexpr int kOpenThreads = 256;                 // threads a block of the inserts and lookups

ATOMICS_HD inline unsigned int murmur3_fmix32(unsigned int h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}
ATOMICS_HD inline std::size_t home_slot(unsigned int key, std::size_t slots) {
    return murmur3_fmix32(key) % slots;
}
ATOMICS_HD inline unsigned long long pack(unsigned int key, unsigned int value) {
    return (static_cast<unsigned long long>(key) << 32) | value;
}
ATOMICS_HD inline unsigned int key_of(unsigned long long slot) {
    return static_cast<unsigned int>(slot >> 32);
}

}  // namespace atomics
