// ./lab calibrate: times each reference solution's speed test on this machine's GPU and writes
// its calibration into tests/speed.json.

#include "kit.hpp"

namespace lab::cli {

int calibrate(const Kit& kit)
{
    kit.require_toolchain(true);
    if (!kit.gpu_present()) throw Failure("calibration measures the reference solutions on a GPU, and there is none here");
    kit.configure_and_build("cuda-solutions", {"lab-bench"});
    if (kit.run({kit.program("cuda-solutions", "lab-bench"), "--calibrate", kit.root + "/tests/speed.json", "--runs", "10"}) != 0)
        throw Failure("calibration failed (see above)");
    return 0;
}

}  // namespace lab::cli
