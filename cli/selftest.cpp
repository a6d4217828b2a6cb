// ./lab selftest: the kit's own test suite, in one build tree per backend (build/cpu-solutions, the
// tree ./lab run builds, and build/cuda-solutions where nvcc is installed). Every solution passes,
// every untouched exercise fails with its to-do list and its stubs give wrong answers, the kit's
// own tests pass (the planted mistakes are caught, the grader gives its corpus's quick entries
// their verdicts, the handouts, the CPU backend's checks; with --all the long ones too: the whole
// corpus, grade-all, Slurm, the CI templates, the release), and exercises/ matches what solutions/
// generates. Without a GPU, build/cuda-solutions is built only with --all. Quiet: a progress line
// per phase; the tables and the failures only when something fails.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>

#include "batch.hpp"
#include "console.hpp"
#include "kit.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/rung_tests.hpp"

namespace lab::cli {

namespace fs = std::filesystem;

namespace {

// Disk the self-test's trees take, with room to spare (build/cpu-solutions with its grading trees:
// about 3 GiB; build/cuda-solutions: 1.5 GiB).
constexpr double kSelftestGiB = 6;

// The stubs run on small inputs only: showing that they give wrong answers takes no more (and no
// racecheck test: a wrong answer needs no tool to show).
const std::string kStubCases =
    "*_n1_b*:*_n2_b*:*_n31_b*:*_n32_b*:*_n33_b*:*_n1856_b*:*_r1_c1_b*:*_r1_c2_b*:*_r1_c31_b*:*_r1_c33_b*:*_r1_c1856_b*:"
    "*_r3_c1_b*:*_r3_c2_b*:*_r3_c31_b*:*_r3_c33_b*:*_r3_c1856_b*-*/Racecheck.*";

// lab-summary on the rungs' results, quietly: its table is shown only when they are not as expected.
void expect_rungs(const Kit& kit, const std::string& preset, const std::vector<RungRun>& runs, const std::string& expectation,
                  const std::string& problem)
{
    std::vector<std::string> args = junit_args(runs);
    args.insert(args.end(), {"--expect", expectation});
    std::vector<std::string> command{kit.program(preset, "lab-summary")};
    command.insert(command.end(), args.begin(), args.end());
    const std::string log = kit.tree(preset) + "/summary_" + expectation + ".log";
    if (run_logged(command, log) == 0) return;
    std::cout << lab::read_file(log);
    if (expectation == "pass") say_failures(kit, preset, runs);
    throw Failure(problem + " (the table above; every case's verdict in " + kit.tree(preset) + "/*_NN.xml)");
}

// How many of the kit's tests in build/PRESET carry the label "long" (ctest -N).
int long_tests(const Kit& kit, const std::string& preset)
{
    int count = 0;
    run_logged({"ctest", "--test-dir", kit.tree(preset), "-N", "-L", "^long$"}, kit.tree(preset) + "/kit_long.log",
               [&](const std::string& line) { std::sscanf(line.c_str(), "Total Tests: %d", &count); });
    return count;
}

// The kit's own tests (labels kit and emulator) through ctest, quietly. Without `all`, not those
// labelled "long" (the corpus but its quick entries, grade-all, Slurm, the CI templates, the
// release: grader/CMakeLists.txt); the phase's last line says how many were left out.
void kit_tests(const Kit& kit, const std::string& preset, bool all)
{
    const std::string junit = kit.tree(preset) + "/kit.xml", log = kit.tree(preset) + "/kit.log";
    fs::remove(junit);
    const int left_out = all ? 0 : long_tests(kit, preset);
    Phase phase("the kit's own tests");
    int total = 0;
    std::vector<std::string> command{"ctest", "--test-dir", kit.tree(preset), "-L", "^(kit|emulator)$", "-j",
                                     std::to_string(kit.jobs), "--output-junit", junit};
    if (!all) command.insert(command.end(), {"-LE", "^long$"});
    run_logged(command, log, [&](const std::string& line) {
                   int done = 0;
                   char name[200] = "";
                   if (std::sscanf(line.c_str(), " %d/%d Test %*s %199s", &done, &total, name) == 3)
                       phase.update("the kit's own tests: " + std::to_string(done) + "/" + std::to_string(total) + " (" + name + ")");
               });
    stop_if_interrupted("no results of this run are kept");
    std::error_code error;
    if (!fs::exists(junit, error) || fs::file_size(junit, error) == 0)
        throw Failure("ctest wrote no results for the kit's own tests; its log: " + log);
    const std::string summary_log = kit.tree(preset) + "/summary_kit.log";
    if (run_logged({kit.program(preset, "lab-summary"), "--junit", junit, "--expect", "pass", "--failures", "3"}, summary_log) == 0) {
        phase.done("the kit's own tests: " + std::to_string(total) + " passed or skipped by the kit" +
                   (left_out > 0 ? "; " + std::to_string(left_out) +
                                       " long ones not run (most of the grader's corpus, grade-all, Slurm, the CI templates, "
                                       "the release): ./lab selftest --all runs them, and CI does"
                                 : ""));
        return;
    }
    phase.done("the kit's own tests: some FAILED");
    std::cout << lab::read_file(summary_log);
    throw Failure("the kit's own tests failed (above; ctest's log: " + log + ")");
}

// The reference solutions' cases: run here, or, when ./lab run (or an earlier self-test) passed them
// on the very programs and data build/PRESET holds now (its stamp; no --seed given), those verdicts,
// checked the same way.
// Returns the sample's seed the verdicts are for.
std::string solutions_pass(const Kit& kit, const std::string& preset, const std::string& seed)
{
    if (seed.empty())
        if (const auto stamp = current_run_stamp(kit, preset)) {
            const auto runs = recorded_runs(kit, preset);
            int passed = 0;
            for (const RungRun& r : runs) passed += r.passed;
            const long long minutes = (static_cast<long long>(std::time(nullptr)) - stamp->at) / 60;
            say("the reference solutions' cases: " + std::to_string(passed) + " passed " +
                (minutes < 1 ? std::string("under a minute") : std::to_string(minutes) + " min") +
                " ago (./lab run, or an earlier self-test), on the same programs and cases (not run again; --seed runs them here)");
            expect_rungs(kit, preset, runs, "pass", "the reference solutions failed");
            return stamp->sample;
        }
    Batch solutions;
    if (kit.is_cpu(preset)) solutions.sample = sample_seed(seed);
    forget_run_stamp(kit, preset);  // these results take the place of ./lab run's
    const auto passed = run_rungs(kit, preset, solutions, "the reference solutions' cases");
    expect_rungs(kit, preset, passed, "pass", "the reference solutions failed");
    write_run_stamp(kit, preset, solutions.sample);
    return solutions.sample;
}

// The rungs of build/PRESET: the solutions pass, the untouched exercises fail with their to-do
// list, and their stubs, run anyway, give wrong answers. Returns the solutions' sample seed.
std::string rungs_as_expected(const Kit& kit, const std::string& preset, const std::string& seed)
{
    const std::string sample = solutions_pass(kit, preset, seed);

    Batch exercises;
    exercises.program = "exercise_";
    exercises.tag = "todos";
    const auto todos = run_rungs(kit, preset, exercises, "the untouched exercises (each case must fail with its to-do list)");
    expect_rungs(kit, preset, todos, "todos", "an untouched exercise did not fail as it should");

    Batch stubs = exercises;
    stubs.tag = "stubs";
    stubs.filter = kStubCases;
    stubs.environment = {{"LAB_IGNORE_TODOS", "1"}};
    const auto wrong = run_rungs(kit, preset, stubs, "the exercises' stubs, run anyway on small cases (each rung must fail)");
    expect_rungs(kit, preset, wrong, "stubs", "a skeleton passes without any work");
    return sample;
}

// What a CUDA tree builds where there is no GPU to run it: the tools, the construct corpus and each
// rung's test program (the solutions and the harness as a GPU build compiles them). Not the
// untouched exercises: build/cpu-solutions compiled each with nvcc already (its nvcc check), and
// compiling them again here took a third of this build's 170 s on 2 cores.
std::vector<std::string> gpu_targets()
{
    std::vector<std::string> targets{"lab-summary", "lab-bench", "lab-grade", "construct_tests"};
    for (const RungInfo& rung : Registry::kit().rungs()) targets.push_back(suites_program(rung));
    return targets;
}

// build/cuda-solutions on a machine with nvcc and no GPU, compiled beside the CPU backend's checks
// and the kit's tests at the lowest priority (nice 19): it takes the cores those leave idle (on 2
// cores about a fifth of the self-test's time), where it took two minutes of its own at the end.
// Its log is build/cuda-solutions/background-build.log; the build that follows the tests finishes it
// and reports it as any build (a failure here is found again there, with its first error).
class BackgroundBuild {
public:
    BackgroundBuild(const Kit& kit, const std::string& preset, const std::vector<std::string>& targets)
    {
        const std::string dir = kit.tree(preset);
        if (!fs::exists(dir + "/CMakeCache.txt") || !fs::exists(dir + "/build.ninja")) {
            Phase phase("configuring build/" + preset);
            fs::create_directories(kit.build);
            const std::string log = kit.build + "/configure-" + preset + ".log";
            const int status = run_logged(kit.configure_command(preset), log, {}, {}, kit.root);
            stop_if_interrupted("build/" + preset + " is configured again on the next run");
            phase.done(status == 0 ? "configured build/" + preset + "; it builds beside the tests"
                                   : "configuring build/" + preset + " failed; it is tried again after the tests");
            if (status != 0) return;
        }
        std::vector<std::string> command{"nice", "-n", "19", "cmake", "--build", dir, "-j", std::to_string(kit.jobs)};
        for (const std::string& target : targets) command.insert(command.end(), {"--target", target});
        process::Options options;
        options.search_path = true;
        options.null_stdin = true;
        options.output = dir + "/background-build.log";
        options.group = process::Options::Group::process_group;  // stopped as one when the self-test stops
        pid_ = process::start(command, options);
    }
    BackgroundBuild(const BackgroundBuild&) = delete;
    BackgroundBuild& operator=(const BackgroundBuild&) = delete;
    void wait()
    {
        if (pid_ > 0) process::wait(pid_);
        pid_ = -1;
    }
    ~BackgroundBuild()
    {
        if (pid_ > 0) process::kill_group(pid_);
    }

private:
    pid_t pid_ = -1;
};

}  // namespace

int selftest(const Kit& kit, const std::string& only, const std::string& seed, bool all)
{
    watch_interrupts();
    kit.require_toolchain(only == "cuda");
    const bool cpu = only != "cuda";
    bool cuda = kit.have_nvcc() && only != "cpu";
    const bool gpu = cuda && kit.gpu_present();
    if (gpu) kit.require_usable_gpu();
    kit.require_disk_space(kSelftestGiB);
    const auto started = std::chrono::steady_clock::now();
    std::string generator;
    std::optional<BackgroundBuild> beside;
    if (cpu) {
        say("== the CPU backend (build/cpu-solutions)");
        kit.build_with_progress("cpu-solutions", {});
        if (cuda && !gpu && all) beside.emplace(kit, "cuda-solutions", gpu_targets());
        const std::string sample = rungs_as_expected(kit, "cpu-solutions", seed);
        if (!sample.empty())
            say("(the reference solutions' larger cases: " + std::string(lab::kCpuSampleWords) + ", seed " + sample +
                "; ./lab run --all-cases runs them all)");
        kit_tests(kit, "cpu-solutions", all);
        generator = kit.program("cpu-solutions", "lab-generate");
    }
    // Without a GPU the CUDA tree can only be built (its kernels' files are compiled with nvcc in
    // build/cpu-solutions already): the second build of the kit that takes, on 2 cores, a third of
    // the self-test. --all builds it, and CI does.
    const bool cuda_left_out = cuda && !gpu && !all && only != "cuda";
    if (cuda_left_out) {
        say("== CUDA (build/cuda-solutions): not built here (no GPU to run it; the rungs' files were compiled with nvcc "
            "above): ./lab selftest --all builds it, and CI does");
        cuda = false;
    }
    if (cuda) {
        say(std::string("== CUDA (build/cuda-solutions)") + (gpu ? "" : ": no GPU here, so built and not run"));
        if (gpu) {
            kit.build_with_progress("cuda-solutions", {});
            rungs_as_expected(kit, "cuda-solutions", seed);
            kit_tests(kit, "cuda-solutions", all);
        } else {
            if (beside) {
                Phase phase("waiting for build/cuda-solutions, begun beside the tests");
                beside->wait();
                phase.done("build/cuda-solutions, begun beside the tests, has stopped");
            }
            kit.build_with_progress("cuda-solutions", gpu_targets());
        }
        if (generator.empty()) generator = kit.program("cuda-solutions", "lab-generate");
    }
    if (generator.empty() || !fs::exists(generator)) kit.build_with_progress(cpu ? "cpu-solutions" : "cuda-solutions", {"lab-generate"});
    {
        Phase phase("exercises/ and the README's rung table against what the generator writes");
        const std::string log = kit.build + "/generate-check.log";
        if (run_logged({generator, "--check"}, log) != 0) {
            std::cout << lab::read_file(log);
            throw Failure("exercises/ or README.md is out of date: run ./lab generate");
        }
        phase.done("exercises/ and the README's rung table are what the generator writes");
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    say("");
    if (cpu && cuda) say("selftest passed in " + duration_text(seconds) + (gpu ? "" : " (CUDA built, not run: no GPU here)") + ".");
    else if (cuda_left_out) say("selftest passed in " + duration_text(seconds) + " (CPU backend; the CUDA tree is --all's without a GPU).");
    else if (cpu && only.empty())
        say("selftest passed in " + duration_text(seconds) + " (CPU backend only: install the CUDA Toolkit to check the nvcc builds too).");
    else say("selftest passed (only " + only + ") in " + duration_text(seconds) + ".");
    return 0;
}

}  // namespace lab::cli
