// ./lab selftest: the kit's own test suite. Every solution passes, every untouched exercise fails
// with its to-do list and its stubs give wrong answers, exercises/ matches what solutions/
// generates, and the CPU backend catches planted bugs; under CUDA too where nvcc is installed.
#include <chrono>

#include "kit.hpp"

namespace lab::cli {

namespace {

// The stubs run on small inputs only: showing that they give wrong answers takes no more.
const std::vector<std::string> kStubCases{"-L", "kernel", "-R", "(_n(1|2|31|32|33|1856)|_r(1|3)_c(1|2|31|33|1856))_b"};
const std::vector<std::pair<std::string, std::string>> kRunStubs{{"LAB_IGNORE_TODOS", "1"}};

}  // namespace

int selftest(const Kit& kit, const std::string& only)
{
    kit.require_toolchain(only == "cuda");
    const bool cpu = only != "cuda";
    const bool cuda = kit.have_nvcc() && only != "cpu";
    const int steps = 1 + (cpu ? 3 : 0) + (cuda ? 2 : 0);
    int step = 0;
    const auto started = std::chrono::steady_clock::now();
    const auto at = [&] {
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started);
        return "(at " + std::to_string(seconds.count()) + "s)";
    };
    const auto heading = [&](const std::string& what) {
        say("== " + std::to_string(++step) + "/" + std::to_string(steps) + " " + what + " " + at());
    };
    std::string generator;
    if (cpu) {
        heading("CPU backend, reference solutions: every case passes; the emulator catches planted bugs");
        kit.configure_and_build("cpu-solutions");
        if (!kit.check_tree("cpu-solutions", "pass")) throw Failure("the reference solutions failed on the CPU backend");

        heading("CPU backend, untouched exercises: every kernel case fails with its to-do list");
        kit.configure_and_build("cpu-exercises");
        if (!kit.check_tree("cpu-exercises", "todos")) throw Failure("an untouched exercise did not fail as it should");

        heading("CPU backend, the stubs run anyway: every skeleton gives wrong answers");
        if (!kit.check_tree("cpu-exercises", "stubs", kStubCases, kRunStubs)) throw Failure("a skeleton passes without any work");
        generator = kit.tool("cpu-solutions", "grader/lab-generate");
    }
    if (cuda) {
        const bool gpu = kit.gpu_present();
        heading(std::string("CUDA, reference solutions") + (gpu ? "" : " (no GPU here: built, kernel cases skipped)"));
        kit.configure_and_build("cuda-solutions");
        if (!kit.check_tree("cuda-solutions", "pass")) throw Failure("the reference solutions failed under CUDA");

        heading("CUDA, untouched exercises");
        kit.configure_and_build("cuda-exercises");
        if (!kit.check_tree("cuda-exercises", "todos"))
            throw Failure("an untouched exercise did not fail as it should under CUDA");
        if (gpu) {
            say("   and their stubs, run anyway on the GPU " + at());
            if (!kit.check_tree("cuda-exercises", "stubs", kStubCases, kRunStubs)) throw Failure("a skeleton passes on the GPU");
        }
        if (generator.empty()) generator = kit.tool("cuda-solutions", "grader/lab-generate");
    }
    heading("exercises/ and the README's rung table match what the generator writes");
    if (kit.run({generator, "--check"}) != 0) throw Failure("exercises/ or README.md is out of date: run ./lab generate");
    say("");
    if (cpu && cuda) say("selftest passed " + at());
    else if (cpu && only.empty()) say("selftest passed (CPU backend only: install the CUDA Toolkit to check the nvcc builds too)");
    else say("selftest passed (only " + only + ", " + at() + ")");
    return 0;
}

}  // namespace lab::cli
