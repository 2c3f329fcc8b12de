// warp_peers.cuh: the blog's two warp-level building blocks, written for today's CUDA.
//   get_peers(key, active)          the blog's loop: one __shfl_sync + __ballot_sync per
//                                   distinct key in the warp
//   match_peers(key, active)        the same mask in one instruction, __match_any_sync (sm_70+)
//   reduce_peers(peers, x, active)  a tree reduction inside every peer group at once; every peer
//                                   gets its group's sum (reduce_peers<false>: the first peer only)
//   lane_id(), lanes_below(), first_peer(peers), warp_lanes(): the lane arithmetic around them
//
// What a caller must give them:
// - `active` is the mask of the warp's lanes that call the function, all with the same value,
//   and every lane it names must call. The blog wrote for Kepler, where __shfl, __ballot and
//   __any took no mask; they no longer exist for sm_70 and later, whose lanes are scheduled
//   independently, so every warp intrinsic here names the lanes that execute it.
// - Any block shape. A warp is 32 consecutive threads of the block in linear order (x fastest,
//   then y, then z): in a 16x8 block, threadIdx (0, 1) is lane 16. lane_id() is the hardware's
//   lane. threadIdx.x % 32 equals it only where the block is 1-D or blockDim.x is a multiple of
//   32 (the linear index then differs from threadIdx.x by a multiple of 32), not in a 16x8 block.
// - Whole warps, or a mask of the lanes that exist. When the block's thread count is a multiple of
//   32, every warp has 32 lanes and `__ballot_sync(0xffffffff, i < n)` gives `active`. Otherwise
//   the block's last warp is partial (a block of 48 threads: lanes 0-15 of its second warp), and a
//   full mask there names lanes that do not exist: undefined. warp_lanes() is the mask of the lanes
//   that exist in any block; `__ballot_sync(warp_lanes(), i < n)` is right everywhere.
// - Keys of 32 or 64 bits, compared bit for bit: see same_key().
// - `peers` (reduce_peers, first_peer) from get_peers or match_peers over the same `active`: each
//   lane's own group, the lane itself included, the same mask in every lane of the group. Masks
//   stored by one pass and reused by another (the blog's reuse) hold only where both passes put the
//   same keys on the same lanes, and so have the same `active`: the same block shape, grid and
//   mapping of elements to threads.
// - A bin that is a function of the key's bits alone: the first peer adds the whole group's sum to
//   the bin of its own element, so peers whose bins differed would put all their values into one.
// - C++14 or later: key_bits uses std::conditional_t and a deduced `auto` return type (the
//   repository builds it as C++17, the only standard tested).
//
// This is the one header the chapter's kernels and launchers need beside CUDA's own: a program's
// kernels copied into another project compile with it alone (the compile_alone tests check it).
#pragma once

#include <cstring>
#include <type_traits>

namespace warp_agg {

constexpr int kWarp = 32;
constexpr unsigned int kFullMask = 0xffffffffu;

// This thread's lane in its warp: the PTX register %laneid, right for any block shape.
__device__ __forceinline__ unsigned int lane_id() {
    unsigned int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

// The lanes below this one: the PTX register %lanemask_lt. The blog wrote `peers << (32 - lane)`,
// which shifts by 32 for lane 0: undefined behaviour in C++, whatever the hardware happens to do.
__device__ __forceinline__ unsigned int lanes_below() {
    unsigned int mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}

// The lanes of this thread's warp that exist: all 32, but for the last warp of a block whose
// thread count is not a multiple of 32.
__device__ __forceinline__ unsigned int warp_lanes() {
    const unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned int thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    const unsigned int lanes = threads - (thread & ~31u);  // from this warp's first thread on
    return lanes >= kWarp ? kFullMask : (1u << lanes) - 1u;
}

// What makes two keys peers: the same bits. A key is its 32 or 64 bits, in get_peers as in
// __match_any_sync, which compares bit for bit. For a float key: -0.0f and +0.0f are two keys,
// and a NaN is a key like any other, the peer of every NaN with its bits. (With ==, a NaN would
// equal nothing, not even itself: get_peers' leader would never find itself, and the loop would
// never end.) Where another equality is wanted, make equal keys equal bits first: `key + 0.0f`
// turns -0.0f into +0.0f.
template <class Key>
__device__ __forceinline__ auto key_bits(Key key) {
    static_assert(sizeof(Key) == 4 || sizeof(Key) == 8, "keys of 32 or 64 bits");
    using Bits = std::conditional_t<sizeof(Key) == 4, unsigned int, unsigned long long>;
    Bits bits;
    memcpy(&bits, &key, sizeof bits);
    return bits;
}

template <class Key>
__device__ __forceinline__ bool same_key(Key a, Key b) {
    return key_bits(a) == key_bits(b);
}

// Tracing hooks: the programs' --trace passes a recorder; everything else passes nothing and the
// empty calls compile away.
struct NoPeersTrace {
    __device__ void operator()(int /*step*/, int /*leader*/, unsigned int /*peers*/,
                               unsigned int /*unclaimed*/) const {}
};
struct NoReduceTrace {
    template <class F>
    __device__ void operator()(int /*step*/, F /*x*/, unsigned int /*peers*/) const {}
};

// The blog's get_peers: take the key of the first unclaimed lane, broadcast it, vote on who has
// the same key; those lanes have found their peers and leave; repeat. As many rounds as the warp
// has distinct keys. Works for any key type that __shfl_sync can move (32 or 64 bits); peers are
// the lanes whose keys are the same bits (same_key).
//
// The mask of each round is `unclaimed`: exactly the lanes still in the loop (a lane leaves in
// the round that matches it, the same round removes it from `unclaimed`, and every lane holds the
// same `unclaimed` because it comes from the same ballots). The blog's mask-less intrinsics
// implicitly used "whoever is here"; naming the full warp instead would be undefined, because the
// lanes that already left never reach the intrinsic.
//
// A mask that is not a constant costs extra where the compiler cannot prove that the lanes
// executing the intrinsic are the ones it names: each round then also checks that (a MATCH.ANY on
// `unclaimed` and REDUX.OR in the SASS) and branches to a slow path if not (RESULTS.md, "The peer
// search in the SASS").
template <class Key, class Trace = NoPeersTrace>
__device__ unsigned int get_peers(Key key, unsigned int active, Trace trace = {}) {
    // BEGIN SOLUTION
    // STUB: // TODO: the blog's loop, one round per distinct key, each round's intrinsics on the
    // STUB: // mask of the lanes still in it. After each round's ballot call
    // STUB: // trace(round, leader, peers, unclaimed lanes after the round), rounds counted from
    // STUB: // 0: it is what --trace prints (it costs nothing otherwise).
    // STUB: return 0u;
    unsigned int peers = 0;
    bool is_peer = false;
    unsigned int unclaimed = active;  // in the beginning, every calling lane is available
    int step = 0;
    do {
        // fetch the key of the first unclaimed lane and compare it with this lane's key
        const int leader = __ffs(unclaimed) - 1;
        is_peer = same_key(key, __shfl_sync(unclaimed, key, leader));
        // which lanes had a match
        peers = __ballot_sync(unclaimed, is_peer);
        trace(step++, leader, peers, unclaimed ^ peers);
        // remove the lanes with matching keys from the pool
        unclaimed ^= peers;
    } while (!is_peer);  // quit once this lane has matched
    return peers;
    // END SOLUTION
}

// __match_any_sync returns the mask of the lanes in `active` whose key has this lane's bits: the
// whole loop above in one instruction.
template <class Key>
__device__ __forceinline__ unsigned int match_peers(Key key, unsigned int active) {
    return __match_any_sync(active, key_bits(key));
}

// The lowest lane of a peer group: the one that adds the group's sum to memory.
__device__ __forceinline__ int first_peer(unsigned int peers) {
    return __ffs(peers) - 1;
}

// The blog's reduce_peers. A tree reduction over every peer group at once, indexed by a lane's
// position among its peers (rel_pos) rather than by its lane: in round i, the lanes whose rel_pos
// has bit i set hand their partial sum to the next-lower remaining peer and drop out (the blog's
// "reduced away"). Each remaining lane adds the value of its next-higher remaining peer, found
// with __ffs on a mask of the peers above it. The first peer ends with the group's sum, which is
// then broadcast to every peer. log2(largest group) rounds.
//
// Every lane in `active` stays in the loop until __any_sync says that no lane has a peer left to
// add, so `active` is the right mask for every intrinsic: all of its lanes execute each of them.
// The final broadcast is what the blog calls optional: a caller that only lets the first peer
// use the sum (one atomic per group) asks for kBroadcast = false and saves a shuffle (two for a
// double) per value.
template <bool kBroadcast = true, class F, class Trace = NoReduceTrace>
__device__ F reduce_peers(unsigned int peers, F x, unsigned int active, Trace trace = {}) {
    const int lane = static_cast<int>(lane_id());
    const int first = first_peer(peers);
    // BEGIN SOLUTION
    // STUB: // TODO: the rel_pos tree inside every peer group, every intrinsic on `active`. After
    // STUB: // each round's add call trace(round, x, peers), rounds counted from 0: it is what
    // STUB: // --trace prints (it costs nothing otherwise).
    // STUB: return F(0);
    // this lane's position among its peers
    unsigned int rel_pos = __popc(peers & lanes_below());
    // from here on, only the peers above this lane
    peers &= 0xfffffffeu << lane;
    int step = 0;
    while (__any_sync(active, peers != 0)) {
        // the next-higher remaining peer, 0 if none
        const int next = __ffs(peers);
        // every lane shuffles, whether or not it adds: a shuffle needs both lanes; a lane with
        // nothing to fetch reads its own value and discards it
        const F t = __shfl_sync(active, x, next ? next - 1 : lane);
        if (next) x += t;
        trace(step++, x, peers);
        // the lanes whose current bit of rel_pos is set are done: remove them from every mask
        const bool done = rel_pos & 1u;
        peers &= ~__ballot_sync(active, done);
        // rel_pos doubles as the round counter
        rel_pos >>= 1;
    }
    // END SOLUTION
    if (!kBroadcast) return x;  // the group's sum in the first peer, partial sums elsewhere
    // hand the group's sum, held by its first peer, to every peer
    return __shfl_sync(active, x, first);
}

}  // namespace warp_agg
