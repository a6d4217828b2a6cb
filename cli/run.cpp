// ./lab run, the main job: builds the reference solutions, runs every rung's tests on them and
// prints a table per rung (cases passed and, on a GPU, the bandwidth reached).
#include <filesystem>

#include "kit.hpp"
#include "lab/registry.hpp"

namespace lab::cli {

int run(const Kit& kit)
{
    kit.require_toolchain();
    const std::string preset = kit.preset_for("solutions");
    say("== building the reference solutions (build/" + preset + ")");
    kit.configure_and_build(preset);
    const std::string bench = kit.tree(preset) + "/bench.tsv";
    std::vector<std::string> args{"--expect", "pass"};
    if (kit.is_cpu(preset)) {
        say("== running every rung's tests on them (no GPU here: on the CPU backend)");
        const std::string junit = kit.tree(preset) + "/results.xml";
        kit.run_ctest(preset, junit);
        args.insert(args.end(), {"--junit", junit});
    } else {
        // One process (one CUDA context) per rung: the same verdicts as ctest's process per case,
        // in a few minutes instead of ten on an H100.
        say("== running every rung's tests on them on the GPU, one process per rung (lab-case batch)");
        const std::string sanitizer = kit.compute_sanitizer();
        for (const RungInfo& rung : Registry::kit().rungs()) {
            const std::string junit = kit.tree(preset) + "/batch_" + rung.id + ".xml";
            std::vector<std::string> command{kit.tool(preset, "common/lab-case"), "batch", "--rung", rung.id, "--exe",
                                             kit.tool(preset, "tests/test_" + rung.id), "--backend", "cuda", "--junit", junit};
            if (!sanitizer.empty()) command.insert(command.end(), {"--sanitizer", sanitizer});
            std::filesystem::remove(junit);
            kit.run(command);  // its verdicts are read from the JUnit file
            if (!std::filesystem::exists(junit)) throw Failure("lab-case wrote no results for rung " + rung.id);
            args.insert(args.end(), {"--junit", junit});
        }
        say("== the kit's own tests (ctest -L kit)");
        const std::string junit = kit.tree(preset) + "/kit.xml";
        kit.run_ctest(preset, junit, {"-L", "kit", "-LE", "grader"});
        args.insert(args.end(), {"--junit", junit});
    }
    std::filesystem::remove(bench);
    int bench_status = 0;
    if (!kit.is_cpu(preset)) {
        say("== timing each rung");
        bench_status = kit.run({kit.tool(preset, "common/tools/lab-bench"), "--tsv", bench});
    }
    say("");
    std::error_code error;
    if (std::filesystem::file_size(bench, error) > 0 && !error) args.insert(args.end(), {"--bench", bench});
    const int status = kit.summary(preset, args);
    if (bench_status != 0)
        throw Failure("timing the rungs failed (lab-bench exited with " + std::to_string(bench_status) + ")");
    return status;
}

}  // namespace lab::cli
