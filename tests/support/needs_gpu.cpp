// Kit tool (lab-needs-gpu): runs a kit test program that holds no student code and needs a GPU (the
// construct corpus under CUDA, ./lab explain against Nsight Compute, the corpus on a GPU), or skips
// it when none is usable: exit 77, ctest's SKIP_RETURN_CODE, after the line "lab: skipped: REASON"
// that lab-summary counts a kit's skip by. Listing a program's tests needs no GPU.
//   lab-needs-gpu PROGRAM [ARGS...]
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "lab/device.hpp"
#include "lab/exit_status.hpp"
#include "lab/test_results.hpp"

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::cerr << "usage: lab-needs-gpu PROGRAM [ARGS...]\n";
        return 2;
    }
    bool listing = false;
    for (int i = 2; i < argc; ++i) listing |= std::strcmp(argv[i], "--gtest_list_tests") == 0;
    if (!listing) {
        const lab::DeviceStatus& device = lab::device_status();
        if (!device.usable) {
            std::cout << lab::kSkippedLine << device.reason << " This kit test needs an NVIDIA GPU; skipped.\n";
            return lab::exit_status::kSkipped;
        }
    }
    std::cout.flush();
    execvp(argv[1], argv + 1);  // a program named without a folder (bash) is looked up in PATH
    std::cout << "lab-needs-gpu: cannot run " << argv[1] << ": " << std::strerror(errno) << "\n";
    return 1;
}
