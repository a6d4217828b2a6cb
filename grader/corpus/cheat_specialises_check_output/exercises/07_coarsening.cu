// A cheat from the in-process suites: an explicit specialisation of the kit's checker that calls
// every output right. The kernel does no work. The grader refuses a file that specialises a kit
// template (and checks outputs in its own process, where this code never is).
#include "lab/check.hpp"
#include "lab/kernel.hpp"

namespace ex07 {

template <typename T>
__global__ void reduce(const T* in, T* block_sums, std::size_t n)
{
    if (threadIdx.x == 0) block_sums[blockIdx.x] = T(0);
}

}  // namespace ex07

template <>
lab::Verdict lab::check_output<float>(const RungInfo&, Op, const LaunchPlan&, const std::vector<float>&,
                                      const std::vector<float>&)
{
    return lab::Verdict{};
}
