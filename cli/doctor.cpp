// ./lab doctor: what this machine has for the kit. The bootstrap (./lab) has already installed,
// or named, the missing Debian packages by the time this runs.
#include <iostream>

#include "kit.hpp"

namespace lab::cli {

int doctor(const Kit& kit)
{
    std::cout << "cmake:   " << std::flush;
    kit.run({"sh", "-c", "cmake --version | head -n1"});
    if (kit.have_nvcc()) {
        std::cout << "nvcc:    " << std::flush;
        kit.run({"sh", "-c", "\"$CUDACXX\" --version | tail -n1"});
    } else {
        say("nvcc:    none (kernels run on the kit's CPU backend; for a GPU, " + cuda_install_advice() + ")");
    }
    if (kit.gpu_present()) {
        std::cout << "GPU:     " << std::flush;
        kit.run({"sh", "-c", "nvidia-smi -L | head -n1"});
    } else {
        say("GPU:     none (kernels run on the kit's CPU backend)");
    }
    kit.require_toolchain();
    say("all set");
    return 0;
}

}  // namespace lab::cli
