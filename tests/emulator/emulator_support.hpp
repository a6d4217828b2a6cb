// Kit tests of the CPU backend: what every emulator test file uses, the thread orders to run a
// kernel in and the error a launch left.
#pragma once

#include <string>

#include "lab/cuda.hpp"

namespace emulator_support {

// The thread orders a test runs its kernel in, one after the other.
inline const lab::cpu::Schedule kOrders[] = {lab::cpu::Schedule::forward, lab::cpu::Schedule::reverse,
                                             lab::cpu::Schedule::random};

// Runs `launch`, then returns the emulator's explanation of the error it reported ("" for none).
template <typename F>
std::string error_of(F&& launch)
{
    launch();
    const cudaError_t launch_error = cudaGetLastError();
    const cudaError_t sync_error = cudaDeviceSynchronize();
    if (launch_error == cudaSuccess && sync_error == cudaSuccess) return "";
    return lab::cpu::last_error_detail();
}

}  // namespace emulator_support
