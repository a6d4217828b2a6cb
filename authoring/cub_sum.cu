// Kit tool; CUDA backend only.
#include "cub_sum.hpp"

#include <vector>

#include <cub/device/device_reduce.cuh>

namespace lab {

namespace {

template <typename T>
std::size_t scratch_bytes(std::size_t n)
{
    std::size_t bytes = 0;
    LAB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                          static_cast<long long>(n)));
    return bytes;
}

}  // namespace

CubSum::CubSum(Dtype dtype, std::size_t n)
    : dtype_(dtype), n_(n), scratch_(dtype == Dtype::i32 ? scratch_bytes<int>(n) : scratch_bytes<float>(n))
{
    launches_ = count_launches();
}

template <typename T>
cudaError_t CubSum::sum(void* scratch, std::size_t& bytes, const void* in, void* out, cudaStream_t stream) const
{
    return cub::DeviceReduce::Sum(scratch, bytes, static_cast<const T*>(in), static_cast<T*>(out),
                                  static_cast<long long>(n_), stream);
}

void CubSum::run(const void* in, void* out) const
{
    std::size_t bytes = scratch_.size();
    LAB_CUDA_CHECK(dtype_ == Dtype::i32 ? sum<int>(scratch_.data(), bytes, in, out, nullptr)
                                        : sum<float>(scratch_.data(), bytes, in, out, nullptr));
}

std::size_t CubSum::count_launches() const
{
    // A captured stream records its work into a graph instead of running it, so nothing is read or
    // written here: any device addresses do.
    DeviceBuffer<unsigned char> place(16);
    cudaStream_t stream = nullptr;
    cudaGraph_t graph = nullptr;
    std::size_t kernels = 0;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return 0;
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess) {
        std::size_t bytes = scratch_.size();
        const cudaError_t called = dtype_ == Dtype::i32 ? sum<int>(scratch_.data(), bytes, place.data(), place.data(), stream)
                                                        : sum<float>(scratch_.data(), bytes, place.data(), place.data(), stream);
        const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
        std::size_t count = 0;
        if (called == cudaSuccess && ended == cudaSuccess && cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess) {
            std::vector<cudaGraphNode_t> nodes(count);
            if (cudaGraphGetNodes(graph, nodes.data(), &count) == cudaSuccess)
                for (cudaGraphNode_t node : nodes) {
                    cudaGraphNodeType type;
                    if (cudaGraphNodeGetType(node, &type) == cudaSuccess && type == cudaGraphNodeTypeKernel) ++kernels;
                }
        }
        if (graph) cudaGraphDestroy(graph);
    }
    cudaStreamDestroy(stream);
    cudaGetLastError();  // a failed capture leaves nothing behind for the next check
    return kernels;
}

}  // namespace lab
