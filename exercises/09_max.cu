// 09_max: any operator, max in particular.
// Changed since 08: the kernel no longer assumes +. It takes the operator as a type, Op, which
// brings its identity (the value that changes nothing: 0 for +, 1 for *, -infinity for max) and
// its combine. Everything that padded with 0 before now pads with the identity: 0 is wrong for max
// over negative numbers and fatal for a product. NaN policy: a NaN anywhere in the input makes max
// and min NaN (CUDA's fmaxf and fminf would drop it).
// Preconditions: blockDim.x is a multiple of 32 up to 1024; any number of blocks. An operator must
// be associative and commutative, since the threads combine the elements in no fixed order.
//
// Exercise: fill in each TODO below, then delete its TODO line. Check your work with
// ./lab check 09 (./lab watch 09 checks on every save); stuck? ./lab hint 09.
#include <limits>

#include "lab/kernel.hpp"

namespace ex09 {

struct Sum {
    template <typename T>
    __host__ __device__ static T identity()
    {
        return T(0);
    }
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const
    {
        return a + b;
    }
};

struct Product {
    template <typename T>
    __host__ __device__ static T identity()
    {
        return T(1);
    }
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const
    {
        return a * b;
    }
};

struct Min {
    template <typename T>
    __host__ __device__ static T identity()
    {
        if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
        else return std::numeric_limits<T>::max();
    }
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const
    {
        if (a != a) return a;  // only a NaN differs from itself
        if (b != b) return b;
        return b < a ? b : a;
    }
};

struct Max {
    // TODO(09-max, ~10 lines): Max's identity and combine, in the shape of Min's above. The
    //   identity must be a value that no element can lose to, ints and floats alike (only floats
    //   have an infinity): 0 loses to nothing negative, and FLT_MIN is the smallest positive
    //   float, not the most negative. The combine keeps the larger of its two arguments, and a NaN
    //   in either one wins (the kit's NaN policy; fmaxf would drop it).
    template <typename T>
    __host__ __device__ static T identity() { return T(0); }
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const { return a; }
};

// Returns, in lane 0, the warp's 32 values combined with op.
template <typename T, typename Op>
__device__ T warp_reduce(T value, Op op)
{
    // TODO(09-warp-reduce, ~1 line): bring your own code of TODO 08-warp-reduce (rung 08) here;
    //   combining with op where rung 08 added.
    (void)op;
    return value;
}

// Writes to block_results[b] the elements block b's threads visit, combined with Op; combining
// all the slots gives Op over in[0, n).
template <typename Op, typename T>
__global__ void reduce(const T* in, T* block_results, std::size_t n)
{
    const Op op;

    // TODO(09-identity, ~1 line): `nothing`, what stands for no element (where each thread's
    //   fold starts, and what a lane with no warp to stand for contributes), must leave any result
    //   unchanged under Op, whichever operator Op is. 0, the earlier rungs' habit, does that for a
    //   sum only.
    const T nothing = T(0);

    const unsigned lane = threadIdx.x % lab::kWarpSize, warp = threadIdx.x / lab::kWarpSize;
    // TODO(09-block-reduce, ~9 lines): bring your own code of TODO 08-block-reduce (rung 08) here;
    //   combining with op where rung 08 added, and with `nothing` wherever it started from 0.
    (void)lane, (void)warp;
    const T mine = lab::thread_fold(in, n, nothing, op);  // this thread's elements, combined
    if (threadIdx.x == 0) block_results[blockIdx.x] = mine;
}

}  // namespace ex09
