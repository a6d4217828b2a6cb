// The `./lab` program's shared pieces: where the kit and its build trees are, what this machine
// has (nvcc, a GPU), and configuring, building and testing a tree. Each command is one file of
// this folder and uses these; none of them loads a student's code.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "console.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"

namespace lab::cli {

void say(const std::string& line);
// Where the CUDA Toolkit comes from on this machine's Debian or Ubuntu release: NVIDIA's repository,
// with the commands.
std::string cuda_install_advice();

class Kit {
public:
    Kit();

    std::string root;   // the kit's folder
    std::string build;  // root/build: one folder per CMake preset
    int jobs;           // $LAB_JOBS, else every core

    // A student release (./lab release writes .lab-release): the instructor's commands refuse to run.
    bool is_release() const;
    void require_instructor_kit(const std::string& command) const;

    std::string nvcc;          // $CUDACXX, else nvcc on PATH, else /usr/local/cuda/bin/nvcc; "" when none
    bool have_nvcc() const { return !nvcc.empty(); }
    bool gpu_present() const;  // nvidia-smi lists a GPU
    std::string compute_sanitizer() const;  // on PATH or beside nvcc; "" when neither
    // Before a command builds kernels: with `cuda`, nvcc is required; otherwise its absence means
    // the CPU backend, and only a GPU without nvcc is an error.
    void require_toolchain(bool cuda = false) const;
    // "cuda-TREE" where this machine has nvcc and a GPU, else "cpu-TREE"; LAB_BACKEND=cpu (or cuda)
    // picks one.
    std::string preset_for(const std::string& tree) const;
    // Before kernels run on the GPU: the driver opens it (probed through libcuda), and it runs the
    // CUDA release nvcc builds for. Throws Failure (exit 2) with what is wrong and the fix.
    void require_usable_gpu() const;
    // Before a build: at least `gib` GiB free where build/ lives, else Failure (exit 2) saying so.
    void require_disk_space(double gib) const;
    bool is_cpu(const std::string& preset) const { return preset.rfind("cpu-", 0) == 0; }
    std::string tree(const std::string& preset) const { return build + "/" + preset; }
    // A program the build made, by its name: every one lies in build/PRESET/bin/ (the top
    // CMakeLists.txt puts them there), so no command knows which folder of the kit makes it.
    std::string program(const std::string& preset, const std::string& name) const { return tree(preset) + "/bin/" + name; }

    // cmake --preset PRESET, and for a CUDA tree on a machine with a GPU (CUDAARCHS unset), built for
    // that GPU alone (native).
    std::vector<std::string> configure_command(const std::string& preset) const;
    // Configures build/PRESET from CMakePresets.json when it has no cache yet, then builds the
    // targets (all without any).
    void configure_and_build(const std::string& preset, const std::vector<std::string>& targets = {}) const;
    // The same without the build's lines: one progress line ("building 212/371"), and on failure
    // the first error with its file and line, and the log's path (build/PRESET/build.log). Returns
    // how many build steps ran.
    int build_with_progress(const std::string& preset, const std::vector<std::string>& targets) const;
    // The build alone, its output in `log`, `progress` hearing each step ("[done/total]"); ninja's
    // exit status. build_failure: what a failed one says (its first error, the log).
    int build_targets(const std::string& preset, const std::vector<std::string>& targets, const std::string& log,
                      const std::function<void(int, int)>& progress = {}) const;
    Failure build_failure(const std::string& preset, const std::string& log) const;
    // The same, with the build's output in `log`, shown (without the build's progress lines) only
    // when the build fails: the student's loop, where a good build should say nothing.
    // With `errors_in_failure`, a failed build's messages go into the Failure it throws, not to the
    // terminal (a build on another thread, whose caller says them in turn: ./lab check's nvcc check).
    void build_quietly(const std::string& preset, const std::vector<std::string>& targets, const std::string& log,
                       bool errors_in_failure = false) const;
    // lab-summary on a tree's results; returns its exit status.
    int summary(const std::string& preset, const std::vector<std::string>& args) const;
    // Builds lab-grade in the TREE ("solutions" or "exercises") for this machine and runs
    // `lab-grade SUBCOMMAND ARGS...`; its exit code.
    int lab_grade(const std::string& tree, const std::string& subcommand, const std::vector<std::string>& args) const;
    // The python3 that imports `module`: Debian's (/usr/bin/python3, where ./lab installs
    // python3-matplotlib) first, then the first on PATH; Debian's, or "python3", when none does
    // (whose error then says what is missing).
    std::string python_with(const std::string& module) const;
    // Runs a program (its output to this terminal); its exit code.
    int run(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& environment = {}) const;
};

// A rung's suites program: its tests, and the judge of each (tests/support).
inline std::string suites_program(const RungInfo& rung) { return "test_" + rung.id; }

// The commands, one file each; main.cpp gives them their command line. Each returns the exit
// status `./lab` ends with, or throws Failure.
// ./lab run: with `all_cases`, every case on the CPU backend too (else of the larger cases one of
// each shape, picked by `seed`, or by the clock when it is empty).
int run(const Kit& kit, bool all_cases, const std::string& seed);
// ./lab selftest: `only` "", "cpu" or "cuda"; `seed` the CPU backend's sample of the reference
// solutions' larger cases ("" for a fresh one); `all`: the kit tests labelled "long" too.
int selftest(const Kit& kit, const std::string& only, const std::string& seed, bool all);
int doctor(const Kit& kit);
int test(const Kit& kit, const std::string& key);  // "" for every rung
// The student's loop: rung NN ("": the first not done) built and checked small cases first
// (cli/check.cpp); with a case name, that case alone. On the CPU backend its larger cases are a
// sample, one of each shape drawn by `seed` (a fresh one when ""), unless `all_cases`.
int check(const Kit& kit, const std::string& key, const std::string& case_name, const std::string& seed = "",
          bool all_cases = false);
int status(const Kit& kit, bool run_checks);
int watch(const Kit& kit, const std::string& key, const std::string& mode);  // mode: "", "poll" or "manual"
// ./lab hint: key a rung, a TODO's name or "" (the first rung not done); level 0 (one further) or 1-3.
int hint(const Kit& kit, const std::string& key, int level, bool all);
// ./lab explain [NN]: the rung's kernel measured on the CPU backend beside the references (explain.cpp).
int explain(const Kit& kit, const std::string& key, const std::string& n, const std::string& block, const std::string& op,
            const std::string& json_out, const std::string& html_out);
int list(const Kit& kit, bool ids_only);
int handouts(const Kit& kit, const std::string& out_dir);  // "" for build/handouts
int replay(const Kit& kit, const std::vector<std::string>& args);
int grade(const Kit& kit, const std::vector<std::string>& args);
int grade_all(const Kit& kit, const std::vector<std::string>& args);
int class_report(const Kit& kit, const std::vector<std::string>& args);
int similarity(const Kit& kit, const std::vector<std::string>& args);
int lms_export(const Kit& kit, const std::vector<std::string>& args);
int generate(const Kit& kit, bool force);
int release(const Kit& kit, const std::vector<std::string>& args);
int calibrate(const Kit& kit);
int bench(const Kit& kit, const std::string& dir);  // "" for build/benchmark
int bench_rung(const Kit& kit, const std::string& key);  // a student's rung against its speed test

}  // namespace lab::cli
