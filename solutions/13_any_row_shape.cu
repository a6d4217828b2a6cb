// 13_any_row_shape: rung 12's row operations for a matrix of any shape.
// Changed since 12: rung 12 gave every row one block, which is right for a few thousand rows of a
// few thousand floats. With 65536 rows of 256 floats a block's 256 threads share 256 floats and
// spend more time starting and synchronising than reading; with 16 rows of a million floats 16
// blocks run while the GPU has room for hundreds. Here the host code looks at the shape and picks
// one of four schemes, each a way to give every multiprocessor work and keep enough bytes in flight:
//   group    short rows: a group of 4 to 32 lanes of one warp per row, many rows per block, the
//            reduction in shuffles only, no __syncthreads();
//   block    medium rows: one block per row as in rung 12, the row held in registers, or in shared
//            memory when it is longer than registers hold (the "slice" below, with one block);
//   cluster  few long rows: a thread-block cluster per row (sm_90 and later); each block holds one
//            slice of the row in its shared memory and the blocks read each other's partial
//            results through distributed shared memory; the row is read from memory once;
//   split    rows longer than a cluster holds, or a GPU (or a request) without clusters: each row
//            cut into parts spread over the whole GPU, one launch for each part's partial result,
//            a second that combines a row's partials and writes; the row is read twice.
// Every scheme builds a row's result from its parts in a fixed order, so a call gives the same bits
// every time it is made on the same input.
// Preconditions: rows >= 1, cols >= 1, rows * cols floats in x (and y) and out, at any alignment.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "lab/kernel.hpp"
#include "lab/row_parts.hpp"

namespace ex13 {

// layer_norm's epsilon, added to the variance before the square root (PyTorch's default).
constexpr float kEpsilon = 1e-5f;
constexpr float kLog2e = 1.4426950408889634f;

// e^t through the GPU's exp2 unit: a multiplication, the special-function instruction and a little
// care for tiny results, where expf spends a dozen instructions on the last bit; the checks allow a
// few units in the last place, and softmax is memory-bound only while its arithmetic stays cheap.
__device__ __forceinline__ float fast_exp(float t) { return exp2f(t * kLog2e); }

// ------------------------------------------------------------------------------------------------
// What a part of a row leaves behind, and how two parts combine. Three floats cover every operation:
//   dot          (sum, -, -)
//   softmax      (max m, the sum of exp(v - m) over the part, -)
//   layer norm   (count, mean, M2: the sum of squared distances from the mean)
struct Stats {
    float a, b, c;
};

struct DotStats {
    static __device__ Stats identity() { return {0.0f, 0.0f, 0.0f}; }
    static __device__ Stats combine(Stats p, Stats q) { return {p.a + q.a, 0.0f, 0.0f}; }
};

// Two parts' sums are against their own max: the part with the smaller max is brought to the larger
// one before adding, one exponential, e^-(the distance between the maxes). Two empty parts (max
// -infinity) stay empty rather than giving exp(-inf - -inf) = NaN.
struct SoftmaxStats {
    static __device__ Stats identity() { return {-INFINITY, 0.0f, 0.0f}; }
    static __device__ Stats combine(Stats p, Stats q)
    {
        if (fmaxf(p.a, q.a) == -INFINITY) return identity();
        const float scale = fast_exp(-fabsf(p.a - q.a));
        return p.a >= q.a ? Stats{p.a, p.b + q.b * scale, 0.0f} : Stats{q.a, p.b * scale + q.b, 0.0f};
    }
};

// Chan, Golub and LeVeque's merge of two parts' (count, mean, M2): the distance between the means
// is small when the values are, so nothing large is subtracted from anything large.
struct MomentStats {
    static __device__ Stats identity() { return {0.0f, 0.0f, 0.0f}; }
    static __device__ Stats combine(Stats p, Stats q)
    {
        const float n = p.a + q.a;
        if (n == 0.0f) return identity();
        const float delta = q.b - p.b, share = __fdividef(q.a, n);  // n is a count: far below 2^126
        return {n, p.b + delta * share, p.c + q.c + delta * delta * p.a * share};
    }
};

// Every lane of each group of W consecutive lanes (W a power of two up to 32) ends with its group's
// result. At each step a lane meets the partner whose lane differs in one bit; the lower lane's
// Stats go first in both, so the two compute the same bits and the group agrees.
template <unsigned W, typename Combine>
__device__ __forceinline__ Stats group_reduce(Stats s)
{
    const unsigned lane = threadIdx.x % lab::kWarpSize;
#pragma unroll
    for (unsigned offset = W / 2; offset > 0; offset /= 2) {
        const Stats o{__shfl_xor_sync(0xffffffffu, s.a, offset, W), __shfl_xor_sync(0xffffffffu, s.b, offset, W),
                      __shfl_xor_sync(0xffffffffu, s.c, offset, W)};
        s = (lane & offset) ? Combine::combine(o, s) : Combine::combine(s, o);
    }
    return s;
}

// Every thread of the block gets the block's result. The barrier first: a kernel may call this
// again on the same slots, and no warp may store there while another still reads the last call's.
template <typename Combine>
__device__ __forceinline__ Stats block_reduce(Stats s)
{
    __shared__ Stats warp_results[lab::kMaxBlockSize / lab::kWarpSize];
    const unsigned lane = threadIdx.x % lab::kWarpSize, warp = threadIdx.x / lab::kWarpSize;
    const unsigned warps = (blockDim.x + lab::kWarpSize - 1) / lab::kWarpSize;
    s = group_reduce<32, Combine>(s);
    if (warps == 1) return s;
    // BEGIN TODO(13-all-reduce, from 12-all-reduce): the value is a Stats now, the operator
    //   Combine::combine (Combine::identity() its identity), and a warp's all-reduce is
    //   group_reduce<32, Combine>; s holds the warp's result already.
    __syncthreads();
    if (lane == 0) warp_results[warp] = s;
    __syncthreads();
    s = lane < warps ? warp_results[lane] : Combine::identity();
    return group_reduce<32, Combine>(s);
    // STUB: (void)warp_results, (void)lane, (void)warp;
    // STUB: return s;
    // END TODO
}

// ------------------------------------------------------------------------------------------------
// The three row operations, each as what a thread folds from its values (fold; fold_once when the
// values stream past once), which Stats combine (Combine), and what each value becomes once the
// row's Stats are known (apply). A share is any of lab/row_parts.hpp's: for_each(f) visits the
// thread's values, write(out, f) stores f of each in its place.
struct SoftmaxOp {
    using Combine = SoftmaxStats;
    // The values are on chip: the max first, then the sum against it (two passes, no rescaling).
    template <typename Share>
    static __device__ Stats fold(const Share& share)
    {
        // BEGIN TODO(13-softmax, from 12-softmax): only this thread's part, as the Stats {m, d}: m
        //   the largest of its values, d the sum of the exponentials of each value less m (fast_exp
        //   above costs less than expf); the scheme combines the threads' Stats and writes the row
        //   with apply. A thread with no values returns what SoftmaxStats::identity() does.
        float m = -INFINITY;
        share.for_each([&](float v) { m = fmaxf(m, v); });
        float d = 0.0f;
        if (m != -INFINITY) share.for_each([&](float v) { d += fast_exp(v - m); });
        return {m, d, 0.0f};
        // STUB: (void)share;
        // STUB: return SoftmaxStats::identity();
        // END TODO
    }
    // One pass over memory: the running max moves by a group of four at a time, and the sum is
    // brought to it only when it grows, which a random row makes rare after the first few groups.
    static __device__ Stats fold_once(const lab::RowStream& stream)
    {
        float m = -INFINITY, d = 0.0f;
        const auto rise_to = [&](float top) {
            if (top > m) {
                d = m == -INFINITY ? 0.0f : d * fast_exp(m - top);
                m = top;
            }
        };
        stream.for_each_group(
            [&](const float4& v) {
                rise_to(fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
                d += (fast_exp(v.x - m) + fast_exp(v.y - m)) + (fast_exp(v.z - m) + fast_exp(v.w - m));
            },
            [&](float v) {
                rise_to(v);
                d += fast_exp(v - m);
            });
        return {m, d, 0.0f};
    }
    struct Apply {
        float m, scale;
        __device__ float operator()(float v) const { return fast_exp(v - m) * scale; }
    };
    static __device__ Apply apply(Stats row) { return {row.a, 1.0f / row.b}; }
};

// Online softmax (Milakov and Gimelshein): one pass for both statistics even where the row is on
// chip; a new max rescales the sum counted so far, one exponential per value either way.
struct SoftmaxOnlineOp : SoftmaxOp {
    template <typename Share>
    static __device__ Stats fold(const Share& share)
    {
        // BEGIN TODO(13-online, from 12-online): only this thread's one pass over its values, to
        //   the same Stats {m, d} as softmax's fold gives, with one exponential per value.
        float m = -INFINITY, d = 0.0f;
        share.for_each([&](float v) {
            const float e = fast_exp(-fabsf(v - m));
            d = v > m ? d * e + 1.0f : d + e;
            m = fmaxf(m, v);
        });
        return {m, d, 0.0f};
        // STUB: (void)share;
        // STUB: return SoftmaxStats::identity();
        // END TODO
    }
};

struct LayerNormOp {
    using Combine = MomentStats;
    // The values are on chip: the mean, then the squared distances from it (two passes).
    template <typename Share>
    static __device__ Stats fold(const Share& share)
    {
        // BEGIN TODO(13-layer-norm, from 12-layer-norm): only this thread's part, as the Stats
        //   {count, mean, M2}: how many values it holds, their mean, and the sum of their squared
        //   distances from that mean, with the same care for a mean far from 0; all three 0 for a
        //   thread with no values. The scheme combines the threads' Stats (MomentStats) and writes.
        float n = 0.0f, sum = 0.0f;
        share.for_each([&](float v) {
            n += 1.0f;
            sum += v;
        });
        const float mean = n > 0.0f ? sum / n : 0.0f;
        float m2 = 0.0f;
        share.for_each([&](float v) { m2 += (v - mean) * (v - mean); });
        return {n, mean, m2};
        // STUB: (void)share;
        // STUB: return MomentStats::identity();
        // END TODO
    }
    // One pass over memory: sums of each value's distance from the first value this thread met,
    // which lies among the others, so the squares stay small and their difference keeps its digits.
    static __device__ Stats fold_once(const lab::RowStream& stream)
    {
        float n = 0.0f, shift = 0.0f, s1 = 0.0f, s2 = 0.0f;
        const auto add = [&](float v) {
            if (n == 0.0f) shift = v;
            const float t = v - shift;
            n += 1.0f;
            s1 += t;
            s2 += t * t;
        };
        stream.for_each_group(
            [&](const float4& v) {
                add(v.x);
                add(v.y);
                add(v.z);
                add(v.w);
            },
            add);
        if (n == 0.0f) return {0.0f, 0.0f, 0.0f};
        const float mean_shift = s1 / n;
        return {n, shift + mean_shift, fmaxf(s2 - s1 * mean_shift, 0.0f)};
    }
    struct Apply {
        float mean, scale;
        __device__ float operator()(float v) const { return (v - mean) * scale; }
    };
    static __device__ Apply apply(Stats row) { return {row.b, rsqrtf(row.c / row.a + kEpsilon)}; }
};

// The part [begin, end) of a row of `cols` that piece `index`, of pieces `length` long, covers; the
// pieces past the row's end are empty.
struct Piece {
    std::size_t begin, end;
    __device__ Piece(std::size_t cols, std::size_t index, std::size_t length)
    {
        begin = index * length < cols ? index * length : cols;
        end = cols - begin > length ? begin + length : cols;
    }
};

// A thread's share of a dot product: what it adds up of the pairs lab::for_each_pair_of hands it of
// [x, x + n) and [y, y + n), as thread `first` of `stride`.
__device__ __forceinline__ Stats dot_fold(const float* x, const float* y, std::size_t n, unsigned first, unsigned stride)
{
    // BEGIN TODO(13-dot, from 12-dot): only this thread's own sum of the products of its pairs, as
    //   the Stats {sum}; the scheme adds the threads' sums (DotStats) and writes.
    float sum = 0.0f;
    lab::for_each_pair_of(x, y, n, first, stride, [&](float a, float b) { sum += a * b; });
    return {sum, 0.0f, 0.0f};
    // STUB: (void)x, (void)y, (void)n, (void)first, (void)stride;
    // STUB: return DotStats::identity();
    // END TODO
}

// ------------------------------------------------------------------------------------------------
// group: G lanes per row, blockDim.x / G rows per block; K 16-byte groups a lane keeps in registers.
// The row a thread of a group of G lanes serves, and its place in the row's group.
template <unsigned G>
struct GroupLane {
    std::size_t row;     // the row's index
    bool live;           // whether that row exists
    std::size_t start;   // where the row starts in the matrix (0 when it does not exist)
    std::size_t length;  // the floats of the row this group reads (0 when it does not exist)
    unsigned lane;       // 0 to G - 1

    __device__ GroupLane(std::size_t rows, std::size_t cols)
    {
        // BEGIN TODO(13-short-rows, ~5 lines): each group of G consecutive lanes must serve one row
        //   of its own, and each lane hold its own place in that row's group, so that no group's
        //   values mix two rows. The grid may have more lanes than rows: a lane past the last row
        //   has nothing to read and nothing to write, and no lane of a real row may depend on it.
        row = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / G;
        live = row < rows;
        start = live ? row * cols : 0;
        length = live ? cols : 0;
        lane = threadIdx.x % G;
        // STUB: (void)rows, (void)cols;
        // STUB: row = start = length = 0;
        // STUB: live = false;
        // STUB: lane = 0;
        // END TODO
    }
};

template <unsigned G, unsigned K, typename Op>
__global__ void group_rows(const float* __restrict__ x, float* __restrict__ out, std::size_t rows, std::size_t cols)
{
    const GroupLane<G> me(rows, cols);
    const lab::RowShareOf<K> share(x + me.start, me.length, me.lane, G);
    const Stats s = group_reduce<G, typename Op::Combine>(Op::fold(share));
    if (me.live) share.write(out + me.start, Op::apply(s));
}

template <unsigned G>
__global__ void group_dot(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                          std::size_t rows, std::size_t cols)
{
    const GroupLane<G> me(rows, cols);
    const Stats s = group_reduce<G, DotStats>(dot_fold(x + me.start, y + me.start, me.length, me.lane, G));
    if (me.live && me.lane == 0) out[me.row] = s.a;
}

// block: one block per row, the row in registers (four 16-byte groups a thread; the rest, if any,
// read again on each pass).
template <typename Op>
__global__ void block_rows(const float* __restrict__ x, float* __restrict__ out, std::size_t cols)
{
    const std::size_t start = std::size_t{blockIdx.x} * cols;
    const lab::RowShareOf<4> share(x + start, cols, threadIdx.x, blockDim.x);
    const Stats s = block_reduce<typename Op::Combine>(Op::fold(share));
    share.write(out + start, Op::apply(s));
}

__global__ void block_dot(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                          std::size_t cols)
{
    const std::size_t start = std::size_t{blockIdx.x} * cols;
    const Stats s = block_reduce<DotStats>(dot_fold(x + start, y + start, cols, threadIdx.x, blockDim.x));
    if (threadIdx.x == 0) out[blockIdx.x] = s.a;
}

// cluster (and block, with a cluster of one): block `rank` of a row's cluster holds slice `rank` of
// the row in its shared memory, `slice` floats long, and reduces it; the cluster's blocks then
// exchange their partial Stats through distributed shared memory, so each ends with the row's.
// Clusters exist from sm_90 on: lab::this_cluster() is cooperative_groups::this_cluster() there, and
// a cluster of one block when compiled for an older GPU, where Rows never asks for more (max_cluster
// is 1 there).
template <typename Op>
__global__ void slice_rows(const float* __restrict__ x, float* __restrict__ out, std::size_t cols, std::size_t slice)
{
    extern __shared__ float4 held[];
    __shared__ Stats mine;
    const lab::cluster_group cluster = lab::this_cluster();
    const unsigned blocks = cluster.num_blocks(), rank = cluster.block_rank();
    const std::size_t start = std::size_t{blockIdx.x / blocks} * cols;
    const Piece piece(cols, rank, slice);
    const lab::SharedSlice part(held, x + start + piece.begin, piece.end - piece.begin);
    Stats s = block_reduce<typename Op::Combine>(Op::fold(part));
    if (blocks > 1) {
        // BEGIN TODO(13-cluster-exchange, ~6 lines): every block of the cluster must end with the
        //   whole row's Stats, built from all the blocks' partials in the same order in each block
        //   (so that all of them write with the same bits). A block may read another's shared
        //   memory only after that block has stored its partial there, and may not leave (its
        //   shared memory goes with it) while another block may still be reading it.
        if (threadIdx.x == 0) mine = s;
        cluster.sync();
        s = Op::Combine::identity();
        for (unsigned other = 0; other < blocks; ++other)
            s = Op::Combine::combine(s, *cluster.map_shared_rank(&mine, other));
        cluster.sync();
        // STUB: (void)mine;
        // END TODO
        // Faster on an H200: cluster.barrier_arrive() here and cluster.barrier_wait() after the
        // write below, so the write overlaps the slowest block's reads instead of waiting for them
        // (with the slice copied by cooperative_groups::memcpy_async, 76-81% of the ceiling at
        // 256 x 65536 against this code's 68-70%). The CPU backend runs both.
    }
    part.write(out + start + piece.begin, Op::apply(s));
}

// split: part p of row r is block r * parts + p. split_fold leaves each part's Stats in `partials`;
// split_apply combines a row's partials (every block of the row alike, in the same order) and
// writes its part, going over it backwards: what split_fold read last is what L2 still holds.
template <typename Op>
__global__ void split_fold(const float* __restrict__ x, std::size_t cols, unsigned parts,
                           std::size_t part_len, Stats* __restrict__ partials)
{
    const std::size_t row = blockIdx.x / parts, p = blockIdx.x % parts;
    const Piece piece(cols, p, part_len);
    const lab::RowStream stream(x + row * cols + piece.begin, piece.end - piece.begin);
    const Stats s = block_reduce<typename Op::Combine>(Op::fold_once(stream));
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

template <typename Combine>
__device__ Stats combine_parts(const Stats* row_partials, unsigned parts)
{
    Stats s = Combine::identity();
    for (unsigned i = threadIdx.x; i < parts; i += blockDim.x) s = Combine::combine(s, row_partials[i]);
    return block_reduce<Combine>(s);
}

template <typename Op>
__global__ void split_apply(const float* __restrict__ x, float* __restrict__ out, std::size_t cols,
                            unsigned parts, std::size_t part_len, const Stats* __restrict__ partials)
{
    const std::size_t row = blockIdx.x / parts, p = blockIdx.x % parts;
    const Stats s = combine_parts<typename Op::Combine>(partials + row * parts, parts);
    const Piece piece(cols, p, part_len);
    const lab::RowStream stream(x + row * cols + piece.begin, piece.end - piece.begin);
    stream.write_backwards(out + row * cols + piece.begin, Op::apply(s));
}

__global__ void split_dot(const float* __restrict__ x, const float* __restrict__ y, std::size_t cols,
                          unsigned parts, std::size_t part_len, Stats* __restrict__ partials)
{
    const std::size_t row = blockIdx.x / parts, p = blockIdx.x % parts;
    const Piece piece(cols, p, part_len);
    const std::size_t start = row * cols + piece.begin;
    const Stats s = block_reduce<DotStats>(dot_fold(x + start, y + start, piece.end - piece.begin, threadIdx.x, blockDim.x));
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

__global__ void split_dot_finish(float* __restrict__ out, unsigned parts, const Stats* __restrict__ partials)
{
    const Stats s = combine_parts<DotStats>(partials + std::size_t{blockIdx.x} * parts, parts);
    if (threadIdx.x == 0) out[blockIdx.x] = s.a;
}

// ------------------------------------------------------------------------------------------------
// The host side: one object per largest matrix, which picks a scheme for each call's shape.
enum class Scheme { group, block, slice, cluster, split };

class Rows {
public:
    // Gets what the schemes need for matrices of up to max_rows x max_cols, once: the split
    // scheme's partials, the GPU's multiprocessor count and shared memory. max_cluster is the
    // largest cluster this object may launch: 1 on a GPU without clusters (before sm_90), and when
    // the kit asks for the schemes without them.
    Rows(std::size_t max_rows, std::size_t max_cols, unsigned max_cluster);
    ~Rows() { cudaFree(partials_); }
    Rows(const Rows&) = delete;
    Rows& operator=(const Rows&) = delete;

    // Each launches its work for a rows x cols matrix and returns without waiting. dot: out[r] is
    // the dot product of row r of x and row r of y; the others: row r of out from row r of x.
    void dot(const float* x, const float* y, float* out, std::size_t rows, std::size_t cols);
    void softmax(const float* x, float* out, std::size_t rows, std::size_t cols) { run<SoftmaxOp>(x, out, rows, cols); }
    void softmax_online(const float* x, float* out, std::size_t rows, std::size_t cols)
    {
        run<SoftmaxOnlineOp>(x, out, rows, cols);
    }
    void layer_norm(const float* x, float* out, std::size_t rows, std::size_t cols) { run<LayerNormOp>(x, out, rows, cols); }

    struct Plan {
        Scheme scheme;
        unsigned threads;  // per block
        unsigned blocks;   // per row: the cluster's blocks or the split's parts; 1 otherwise
        unsigned lanes;    // per row, in the group scheme
    };
    // The scheme for a rows x cols matrix; `held` when the operation writes a row from values it
    // keeps on chip (all but dot, which reads its rows once and writes one float each).
    Plan plan(std::size_t rows, std::size_t cols, bool held) const;

private:
    template <typename Op>
    void run(const float* x, float* out, std::size_t rows, std::size_t cols);
    template <typename Op>
    void launch_slices(const float* x, float* out, std::size_t rows, std::size_t cols, unsigned blocks);

    unsigned multiprocessors_ = 1;
    unsigned max_cluster_ = 1;
    std::size_t slice_max_ = 0;  // floats one block may hold in shared memory
    Stats* partials_ = nullptr;
};

// Blocks of 256 threads that keep every multiprocessor busy: four each (an H200's 132 hold 528).
inline unsigned fill_target(unsigned multiprocessors) { return 4 * multiprocessors; }

// Floats a block of a cluster holds when the row leaves it the choice: 32 KiB, so that several
// blocks share a multiprocessor and one waiting at the cluster's barrier leaves work to the others.
constexpr std::size_t kSliceTarget = 8192;
// Floats below which another block for the same row costs more (its start, its partial) than it
// brings.
constexpr std::size_t kLeastPerBlock = 2048;
// The shared memory a slice kernel keeps for its own variables (block_reduce's slots, `mine`).
constexpr int kOwnShared = 1024;

Rows::Rows(std::size_t max_rows, std::size_t max_cols, unsigned max_cluster)
{
    int device = 0;
    cudaDeviceProp properties{};
    cudaGetDevice(&device);
    cudaGetDeviceProperties(&properties, device);
    multiprocessors_ = properties.multiProcessorCount > 0 ? unsigned(properties.multiProcessorCount) : 1;
    const int shared = int(properties.sharedMemPerBlockOptin) - kOwnShared;
    slice_max_ = (std::size_t(shared) / sizeof(float4) - 1) * 4;  // SharedSlice::bytes_for's inverse
    for (auto kernel : {slice_rows<SoftmaxOp>, slice_rows<SoftmaxOnlineOp>, slice_rows<LayerNormOp>}) {
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
        // Clusters of more than 8 blocks (an H100's and an H200's limit is 16) are "non-portable".
        if (max_cluster > 8 && cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
            max_cluster = 8;
    }
    max_cluster_ = std::max(1u, std::min(max_cluster, 16u));
    // The split scheme's partials: a row has at most ceil(target / rows) parts to fill the GPU, or
    // as many as shared memory's slices it takes, whichever is more.
    const std::size_t parts = fill_target(multiprocessors_) + max_rows * ((max_cols + slice_max_ - 1) / slice_max_ + 1);
    cudaMalloc(&partials_, parts * sizeof(Stats));
}

Rows::Plan Rows::plan(std::size_t rows, std::size_t cols, bool held) const
{
    // BEGIN TODO(13-choose, ~20 lines): pick the scheme from the shape. Rows of up to 1024 floats
    //   go to groups of lanes, with as few lanes as keep each lane's share small (a few 16-byte
    //   loads). Longer rows: when there are enough of them to give every multiprocessor its blocks
    //   (fill_target), a block each, which keeps a row of up to 4096 floats in its threads'
    //   registers and a longer one in its shared memory (Scheme::slice, up to slice_max_ floats);
    //   when not, more blocks per row, but no block with less than kLeastPerBlock floats to read.
    //   A row that needs several blocks and keeps its values (held) goes to a cluster when this
    //   object may launch one (max_cluster_) and the cluster's shared memory holds it (slice_max_
    //   floats a block, kSliceTarget where the row leaves the choice); every other row that needs
    //   several blocks goes to the split scheme.
    const std::size_t target = fill_target(multiprocessors_);
    const std::size_t fill = (target + rows - 1) / rows;                       // blocks per row for a busy GPU
    const std::size_t worth = (cols + kLeastPerBlock - 1) / kLeastPerBlock;    // blocks a row keeps busy
    const std::size_t want = std::max<std::size_t>(1, std::min(fill, worth));
    if (cols <= 1024) {
        unsigned lanes = 4;
        while (lanes < 32 && lanes * 32 < cols) lanes *= 2;
        return {Scheme::group, 256, 1, lanes};
    }
    if (!held) return want <= 1 ? Plan{Scheme::block, 256, 1, 1} : Plan{Scheme::split, 512, unsigned(want), 1};
    if (want <= 1 && cols <= 4096) return {Scheme::block, cols <= 2048 ? 128u : 256u, 1, 1};
    if (want <= 1 && cols <= slice_max_) return {Scheme::slice, 256, 1, 1};
    if (max_cluster_ > 1) {
        const std::size_t blocks = std::min<std::size_t>(std::max(want, (cols + kSliceTarget - 1) / kSliceTarget), max_cluster_);
        if (blocks > 1 && cols <= blocks * slice_max_) return {Scheme::cluster, 256, unsigned(blocks), 1};
    }
    return {Scheme::split, 256, unsigned(std::max<std::size_t>(want, (cols + slice_max_ - 1) / slice_max_)), 1};
    // STUB: (void)rows, (void)cols, (void)held;
    // STUB: return {Scheme::group, 256, 1, 4};
    // END TODO
}

template <typename Op>
void Rows::launch_slices(const float* x, float* out, std::size_t rows, std::size_t cols, unsigned blocks)
{
    const std::size_t slice = ((cols + blocks - 1) / blocks + 3) / 4 * 4;  // a whole number of 16-byte groups
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(unsigned(rows * blocks));
    config.blockDim = dim3(256);
    config.dynamicSmemBytes = lab::SharedSlice::bytes_for(slice);
    cudaLaunchAttribute cluster = {};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = blocks;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = blocks > 1 ? 1 : 0;
    cudaLaunchKernelEx(&config, slice_rows<Op>, x, out, cols, slice);
}

template <typename Op>
void Rows::run(const float* x, float* out, std::size_t rows, std::size_t cols)
{
    const Plan p = plan(rows, cols, true);
    switch (p.scheme) {
    case Scheme::group: {
        const unsigned grid = unsigned((rows * p.lanes + p.threads - 1) / p.threads);
        // K 16-byte groups a lane keeps in registers: all of its share for 32 lanes (a row of up to
        // 1024 floats); narrower groups read the rest of theirs again on each pass, mostly from L1.
        switch (p.lanes) {
        case 4: group_rows<4, 2, Op><<<grid, p.threads>>>(x, out, rows, cols); break;
        case 8: group_rows<8, 2, Op><<<grid, p.threads>>>(x, out, rows, cols); break;
        case 16: group_rows<16, 4, Op><<<grid, p.threads>>>(x, out, rows, cols); break;
        default: group_rows<32, 8, Op><<<grid, p.threads>>>(x, out, rows, cols); break;
        }
        return;
    }
    case Scheme::block: block_rows<Op><<<unsigned(rows), p.threads>>>(x, out, cols); return;
    case Scheme::slice: launch_slices<Op>(x, out, rows, cols, 1); return;
    case Scheme::cluster: launch_slices<Op>(x, out, rows, cols, p.blocks); return;
    case Scheme::split: {
        const std::size_t part = ((cols + p.blocks - 1) / p.blocks + 3) / 4 * 4;
        const unsigned grid = unsigned(rows * p.blocks);
        split_fold<Op><<<grid, p.threads>>>(x, cols, p.blocks, part, partials_);
        split_apply<Op><<<grid, p.threads>>>(x, out, cols, p.blocks, part, partials_);
        return;
    }
    }
}

void Rows::dot(const float* x, const float* y, float* out, std::size_t rows, std::size_t cols)
{
    const Plan p = plan(rows, cols, false);
    switch (p.scheme) {
    case Scheme::group: {
        const unsigned grid = unsigned((rows * p.lanes + p.threads - 1) / p.threads);
        switch (p.lanes) {
        case 4: group_dot<4><<<grid, p.threads>>>(x, y, out, rows, cols); break;
        case 8: group_dot<8><<<grid, p.threads>>>(x, y, out, rows, cols); break;
        case 16: group_dot<16><<<grid, p.threads>>>(x, y, out, rows, cols); break;
        default: group_dot<32><<<grid, p.threads>>>(x, y, out, rows, cols); break;
        }
        return;
    }
    case Scheme::split: {
        const std::size_t part = ((cols + p.blocks - 1) / p.blocks + 3) / 4 * 4;
        split_dot<<<unsigned(rows * p.blocks), p.threads>>>(x, y, cols, p.blocks, part, partials_);
        split_dot_finish<<<unsigned(rows), 256>>>(out, p.blocks, partials_);
        return;
    }
    default: block_dot<<<unsigned(rows), p.threads>>>(x, y, out, cols); return;
    }
}

}  // namespace ex13
