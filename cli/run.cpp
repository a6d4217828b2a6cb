// ./lab run, the main job: builds the reference solutions, runs every rung's cases on them (one run
// of its suites program a rung), on a GPU times each rung, and prints a table
// per rung. Nothing else: the kit's own tests are ./lab selftest's. Quiet: a progress line per
// phase, and the build's or a case's words only when something fails.
#include <chrono>
#include <filesystem>

#include "batch.hpp"
#include "console.hpp"
#include "kit.hpp"
#include "lab/registry.hpp"
#include "lab/rung_tests.hpp"
#include "progress.hpp"

namespace lab::cli {

namespace fs = std::filesystem;

// Disk the main job's build takes, with room to spare (its targets in build/cpu-solutions: about 0.7 GiB).
constexpr double kRunBuildGiB = 1.5;

int run(const Kit& kit, bool all_cases, const std::string& seed)
{
    watch_interrupts();
    kit.require_toolchain();
    const std::string preset = kit.preset_for("solutions");
    const bool cpu = kit.is_cpu(preset);
    if (!cpu) kit.require_usable_gpu();
    kit.require_disk_space(kRunBuildGiB);
    const auto started = std::chrono::steady_clock::now();
    say(cpu ? "./lab run: the reference solutions on the kit's CPU backend (no GPU here)"
            : "./lab run: the reference solutions on this machine's GPU");

    // What the job runs, all at once: compiling one rung's program while another rung runs was no
    // faster (measured on the 2-core machine and on the H100, whose largest cases need every core).
    std::vector<std::string> targets{"lab-summary"};
    if (!cpu) targets.push_back("lab-bench");
    for (const RungInfo& rung : Registry::kit().rungs()) targets.push_back(suites_program(rung));
    kit.build_with_progress(preset, targets);

    // On the CPU backend, of the larger cases a sample (lab::cpu_sample; unless --all-cases); on a GPU, all.
    Batch batch;
    if (cpu && !all_cases) batch.sample = sample_seed(seed);
    forget_run_stamp(kit, preset);
    const std::vector<RungRun> runs = run_rungs(kit, preset, batch, "the cases");

    // On a GPU: each rung timed (lab-bench: the kernels and size of the speed tests).
    const std::string bench = kit.tree(preset) + "/bench.tsv";
    fs::remove(bench);
    int bench_status = 0;
    if (!cpu) {
        Phase phase("timing the rungs");
        const std::string log = kit.tree(preset) + "/bench.log";
        bench_status = run_logged({kit.program(preset, "lab-bench"), "--tsv", bench}, log, [&](const std::string& line) {
            if (line.rfind("timing ", 0) == 0) phase.update(line.substr(0, line.find(" ...")));
        });
        stop_if_interrupted("no results of this run are kept");
        phase.done(bench_status == 0 ? "timed every rung" : "timing failed: lab-bench exited with " + std::to_string(bench_status) + " (its log: " + log + ")");
    }
    say("");
    std::vector<std::string> args = junit_args(runs);
    args.insert(args.end(), {"--expect", "pass"});
    std::error_code error;
    if (fs::file_size(bench, error) > 0 && !error) args.insert(args.end(), {"--bench", bench});
    const int status = kit.summary(preset, args);
    // Every case passed on these programs: ./lab selftest takes these verdicts while they stay the same.
    if (status == 0) write_run_stamp(kit, preset, batch.sample);
    say_failures(kit, preset, runs);
    if (!batch.sample.empty())
        say("(The CPU backend ran every small case and, of the larger ones, " + std::string(lab::kCpuSampleWords) + ": ./lab run --seed " + batch.sample +
            " runs the same ones again, --all-cases all of them. A GPU runs every case.)");
    if (bench_status != 0) throw Failure("timing the rungs failed (lab-bench exited with " + std::to_string(bench_status) + ")");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    say(std::string(status == 0 ? "./lab run passed" : "./lab run FAILED") + " in " + duration_text(seconds) + ".");
    // What ran was the kit's own answers: where the student's work is, and the step to take.
    if (status == 0) {
        const RungInfo* next = current_rung(kit);
        say("Those were the kit's reference solutions. Your kernels are exercises/NN_name.cu: ./lab status shows where you stand" +
            (next ? ", ./lab check " + next->number + " checks rung " + next->id + ", the first one not done." : "; every rung is done."));
    }
    return status;
}

}  // namespace lab::cli
