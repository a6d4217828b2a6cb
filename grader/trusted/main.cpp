// TRUSTED SIDE. lab-grade: grades a submission out of process (see grader/README.md).
//   lab-grade grade SUBMISSION [--rubric FILE] [--out DIR] [--seed S] [--jobs N]
//   lab-grade grade-all SOURCE [--out DIR] [--rubric FILE] [--seed S] [--force] [--slurm ...]
//   lab-grade replay RUNG --op OP --input KIND --n N --block B --seed S [--grid G] [--offset O] [--scheme S] [--file F]
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <chrono>
#include <mutex>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <optional>
#include <thread>

#include "beside_cases.hpp"
#include "builder.hpp"
#include "reuse.hpp"
#include "categories.hpp"
#include "gpu_lock.hpp"
#include "speed.hpp"
#include "lessons.hpp"
#ifndef LAB_RELEASE
#include "grade_all.hpp"  // not in a student release, which has no batch/
#include "lms.hpp"
#include "similarity.hpp"
#endif
#include "judge.hpp"
#include "intake.hpp"
#include "integrity.hpp"
#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/process.hpp"
#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/speed.hpp"
#include "lab/speed_plan.hpp"
#include "lab/rung_tests.hpp"
#include "lab/text.hpp"
#include "lab/todos.hpp"
#include "plan.hpp"
#include "replay.hpp"
#include "report_facts.hpp"
#include "reports.hpp"
#include "rubric.hpp"
#include "sandbox.hpp"
#include "sanitizer.hpp"
#include "screen.hpp"

namespace {

using namespace lab::grading;
namespace fs = std::filesystem;

std::uint64_t fresh_seed()
{
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device() ^
           static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
}

// The skeleton's TODO lines left in a submitted file, as the suites list them; "" when none.
std::string open_todos(const std::string& id, const std::string& contents)
{
    std::filesystem::create_directories(grading_build_dir() + "/grading");
    // One file per process: two gradings may run at once (the build lock comes later).
    const std::string path = grading_build_dir() + "/grading/todo-check-" + std::to_string(getpid()) + ".cu";
    std::ofstream(path, std::ios::trunc) << contents;
    const auto todos = lab::find_todos(path);
    std::filesystem::remove(path);
    return todos.empty() ? "" : lab::describe_todos("exercises/" + id + ".cu", todos, lab::Registry::kit().get(id).number);
}

Limits limits_of(const Rubric& rubric)
{
    Limits limits;
    limits.case_seconds = rubric.case_seconds;
    limits.rung_seconds = rubric.rung_seconds;
    limits.runner.cpu_seconds = static_cast<std::uint64_t>(rubric.cpu_seconds);
    limits.runner.file_bytes = std::uint64_t{256} << 20;  // far more than honest results need
    limits.runner.memory_bytes = static_cast<std::uint64_t>(rubric.memory_mib) << 20;
    limits.runner.processes = static_cast<int>(rubric.processes);
    limits.confine = sandboxed_runner;
    return limits;
}

std::string self_path()
{
    std::error_code error;
    return fs::read_symlink("/proc/self/exe", error).string();
}

// "" when CUDA starts inside the sandbox as it does outside; else what went wrong. A GPU that
// nvidia-smi shows is no proof that a sandboxed process can use it (without /sys, cuInit fails).
std::string check_device_in_sandbox(std::string& seen)
{
    // A log of this process's own: gradings that share a build tree (a Slurm node's tasks) check at
    // once, and one truncating a shared log while another read it gave that one an empty line.
    const std::string log = grading_build_dir() + "/sandbox-device-" + std::to_string(::getpid()) + ".log";
    SandboxSpec spec;
    const Sandbox sandbox({self_path(), "device"}, spec);
    const int status = lab::process::run(sandbox.argv(), sandbox.options(log));
    {
        std::ifstream in(log);
        std::getline(in, seen);
    }
    std::error_code ignored;
    fs::remove(log, ignored);
    const lab::DeviceStatus& outside = lab::device_status();
    const std::string expected = outside.emulated ? "the CPU backend" : outside.name;
    if (status == 0 && seen == expected) return "";
    // The sandbox's own complaint (bubblewrap's, or the unshare fallback's script's) is no fault of CUDA.
    if (sandbox_not_made(seen))
        return "the sandbox (" + isolation().name + ") could not be made: " + seen + " (exit " + std::to_string(status) +
               "); run `lab-grade sandbox` to see how it is made here";
    return "inside the sandbox (" + isolation().name + ") the device is \"" + seen + "\" (exit " + std::to_string(status) +
           "), but outside it is \"" + expected + "\": the sandbox lacks what CUDA needs (a device node, /sys)";
}

// `lab-grade device`: what this process finds, on one line (run inside the sandbox by grade).
int print_device()
{
    const lab::DeviceStatus& d = lab::device_status();
    std::cout << (d.emulated ? std::string("the CPU backend") : d.usable ? d.name : "not usable: " + d.reason) << '\n';
    return d.usable ? 0 : 1;
}

std::string utc_now() { return lab::format_time(std::time(nullptr)); }

#ifndef LAB_RELEASE
// The GPUs this process may use, as CUDA_VISIBLE_DEVICES names them (or 0..count-1); none on the
// CPU backend. grade-all gives each of its workers one.
std::vector<std::string> visible_gpus()
{
    if (lab::device_status().emulated || !lab::device_status().usable) return {};
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    std::vector<std::string> gpus;
    if (const char* listed = std::getenv("CUDA_VISIBLE_DEVICES"); listed && *listed) {
        std::stringstream in(listed);
        for (std::string id; std::getline(in, id, ',') && static_cast<int>(gpus.size()) < count;) gpus.push_back(id);
    } else {
        for (int i = 0; i < count; ++i) gpus.push_back(std::to_string(i));
    }
    return gpus;
}
#endif

// `lab-grade sandbox`: how submissions would be confined here, and whether CUDA starts inside.
int print_sandbox()
{
    const IsolationChoice& c = isolation();
    if (!c.error.empty()) {
        std::cout << "no sandbox: " << c.error << '\n';
        return 2;
    }
    std::cout << "isolation: " << c.name << (c.fallback.empty() ? "" : " (" + c.fallback + ")") << '\n'
              << isolation_summary(limits_of(load_rubric(lab::kit_path("grader/rubric.toml"))).runner) << '\n';
    std::string seen;
    const std::string wrong = check_device_in_sandbox(seen);
    std::cout << "device inside: " << seen << '\n';
    if (!wrong.empty()) std::cout << "problem: " << wrong << '\n';
    return wrong.empty() ? 0 : 2;
}

// How many rungs' cases a GPU runs side by side: four, or as many as have room in its free memory
// for their largest case each at once, with half as much again to spare (the sanitizer's passes
// beside them, the kernels' own buffers), and at least one. An H100's 80 GB take four rungs of
// 2^31 + 5 ints; a 24 GB card takes one, so that no case fails for another rung's input.
int rungs_side_by_side(const std::map<std::string, std::vector<PlannedCase>>& planned)
{
    std::size_t largest = 0;
    for (const auto& [id, cases] : planned)
        for (const PlannedCase& p : cases)
            if (p.skip.empty()) largest = std::max(largest, lab::device_bytes(p.c));
    std::size_t free = 0, total = 0;
    if (largest == 0 || cudaMemGetInfo(&free, &total) != cudaSuccess) return 3;
    return static_cast<int>(std::clamp<std::size_t>(free / (largest + largest / 2), 1, 4));
}

// A rung's phases from its cases (RungResult::phases): the visible and hidden cases' runner time,
// and of those the large ones' (2^24 elements or more, where a GPU's time goes).
void case_phases(RungResult& r, const RungTimes& times)
{
    double visible = 0, hidden = 0, large = 0;
    for (const CaseResult& c : r.cases) {
        if (c.seconds < 0) continue;
        (c.hidden ? hidden : visible) += c.seconds;
        if (c.n >= (std::uint64_t{1} << 24)) large += c.seconds;
    }
    r.phases["preparing"] = times.preparing;
    r.phases["runner_start"] = times.starting;
    r.phases["visible_cases"] = visible;
    r.phases["hidden_cases"] = hidden;
    r.phases["large_cases"] = large;
    r.phases["checking"] = times.checking;
}

int grade(const std::string& submission, const std::string& rubric_path, const std::string& out_dir,
          const std::string& seed_text, int jobs, bool skip_integrity, const std::string& reuse_dir,
          const std::string& submitted_at, const std::string& student)
{
    const auto started = std::chrono::steady_clock::now();
    const lab::DeviceStatus& device = lab::device_status();
    if (!device.usable) {
        std::cerr << "lab-grade: " << device.reason << "\n  This grader was built for the GPU; without one, build the "
                  << "kit for the CPU backend (./lab grade does) and grade there.\n";
        return 2;
    }
    const Rubric rubric = load_rubric(rubric_path.empty() ? lab::kit_path("grader/rubric.toml") : rubric_path);
    check_rubric_groups(rubric);
    Grade g;
    g.submission = submission;
    g.backend = LAB_BACKEND_NAME;
    g.device = device_name();
    g.seed = seed_text.empty() ? fresh_seed() : parse_seed(seed_text);
    g.rubric = rubric.path + (rubric.course.empty() ? "" : " (" + rubric.course + ")");
    g.rubric_name = fs::path(rubric.path).filename().string() + (rubric.course.empty() ? "" : " (" + rubric.course + ")");
    g.hidden_seed = hidden_seed(rubric, g.seed);
    g.hidden_details = rubric.hidden_details;
    g.proportional = rubric.proportional;
    g.left_out = groups_left_out(rubric, !device.emulated);
    g.graded_at = utc_now();
    g.late = late_verdict(rubric, submitted_at, student);  // a bad time is refused before anything runs
    std::cout << "lab-grade: " << submission << ", seed " << g.seed_text() << ", on " << g.device << '\n';

    Intake intake = take_in(submission);
    g.ignored = intake.ignored;
    // A rung the course does not assign is neither built nor graded, and missing from every report.
    for (auto it = intake.files.begin(); it != intake.files.end();)
        if (!rubric.assigned(it->first)) {
            g.ignored.push_back("exercises/" + it->first + ".cu (a rung the rubric does not assign)");
            it = intake.files.erase(it);
        } else {
            ++it;
        }
    for (const auto& [id, contents] : intake.files) g.taken.push_back("exercises/" + id + ".cu");
    g.refused = intake.refused;
    for (const auto& r : g.refused) std::cout << "  refused: " << r << '\n';
    std::cout << "  taken: " << g.taken.size() << " rung files; ignored: " << g.ignored.size() << " other paths\n";

    // Every rung's cases are chosen before any submitted code runs: nothing a runner does can change them.
    std::map<std::string, std::vector<PlannedCase>> planned;
    std::size_t gpu_only = 0;
    for (const lab::RungInfo& rung : lab::Registry::kit().rungs()) {
        planned[rung.id] = plan_cases(rung, rubric, g.seed, g.hidden_seed);
        if (intake.files.count(rung.id))
            for (const PlannedCase& p : planned[rung.id]) gpu_only += !p.skip.empty();
    }
    // What this machine leaves out, said before anything runs: no group is dropped without a word.
    for (const std::string& group : g.left_out) std::cout << "  left out here: " << group << '\n';
    if (gpu_only)
        std::cout << "  not run here: " << gpu_only << " cases (graded on a GPU only, or too large for this machine); "
                  << "each report lists them by group\n";
    // This run's reports and rubric are out of the sandbox's sight too (sandbox.hpp).
    std::filesystem::create_directories(out_dir);
    hide_in_sandbox(out_dir);
    hide_in_sandbox(rubric.path);
    // The earlier grading too: its report holds the expected values of the cases it failed, which
    // this grading (the same seed) runs again.
    if (!reuse_dir.empty() && fs::is_directory(reuse_dir)) hide_in_sandbox(reuse_dir);
    // Nothing submitted runs unless it can be confined, and CUDA starts inside the sandbox as it does
    // outside (else every rung would fail for the sandbox's sake, not the submission's).
    const IsolationChoice& confined = isolation();
    if (!confined.error.empty()) throw std::runtime_error(confined.error);
    Limits limits = limits_of(rubric);
    g.sandbox = isolation_summary(limits.runner);
    if (confined.kind == Isolation::none) {
        std::cout << "  warning: submissions build and run WITHOUT a sandbox (" << confined.fallback << ")\n";
    } else {
        std::string seen;
        const lab::process::Account account("setup");
        const std::string wrong = check_device_in_sandbox(seen);
        if (!wrong.empty()) throw std::runtime_error("nothing was graded: " + wrong);
        g.sandbox += "; the device, seen from inside: " + seen;
        std::cout << "  sandbox: " << confined.name << (confined.fallback.empty() ? "" : " (" + confined.fallback + ")")
                  << "; device inside: " << seen << '\n';
    }

    // A file that still has the skeleton's TODO lines is unfinished: not built, no points (the suites
    // refuse to run it too; its stubs are there to compile, not to be graded). One that reaches into
    // the kit's code is refused (screen.hpp).
    std::map<std::string, std::string> to_build, unfinished, refused;
    for (const auto& [id, contents] : intake.files) {
        const std::string todos = open_todos(id, contents);
        std::string problems;
        for (const auto& p : screen_source(contents)) problems += "exercises/" + id + ".cu " + p + "\n";
        if (!problems.empty()) refused[id] = problems;
        else if (!todos.empty()) unfinished[id] = todos;
        else to_build[id] = contents;
    }
    // Grading again (--reuse): a rung whose file and whose key are unchanged keeps its earlier result,
    // and is neither built nor run. Every file taken is kept in OUT/graded/ for the next time.
    const std::string rubric_text = lab::read_file(rubric.path);
    // The kit's fingerprint reads the kit's sources and the compilers (seconds on a loaded machine):
    // hashed here, in the intake phase, and not inside the first rung's time.
    kit_fingerprint();
    const auto key_of = [&](const std::string& id) { return reuse_key(g, rubric_text, skip_integrity, id); };
    std::map<std::string, RungResult> reused;
    if (!reuse_dir.empty()) {
        reused = reusable_rungs(reuse_dir, to_build, key_of);
        for (const auto& [id, r] : reused) {
            to_build.erase(id);
            std::cout << "  reuse: " << id << " unchanged since " << r.graded_at << ": its earlier result stands\n";
        }
    }
    fs::create_directories(out_dir + "/graded");
    for (const auto& [id, contents] : intake.files) {
        std::ofstream file(out_dir + "/graded/" + id + ".cu", std::ios::binary | std::ios::trunc);
        file << contents;
        if (!file) throw std::runtime_error("cannot write " + out_dir + "/graded/" + id + ".cu");
    }
    g.phases["intake"] = seconds_since(started);
    // On a GPU machine the sanitizer's thread orders need the files built for the CPU backend too:
    // that build starts now, below the GPU build and the cases in priority, on the cores they leave.
    // (A file the GPU build or the integrity checks refuse is built for nothing: its rung never runs.)
    CpuOrdersBuild cpu_orders(rubric, to_build, jobs);
    std::cout << "  building " << to_build.size() << " runners\n" << std::flush;
    auto phase_started = std::chrono::steady_clock::now();
    // Without a GPU this tree is the CPU backend's: the lessons' explain programs build with the runners.
    std::optional<lab::process::Account> account(std::in_place, "build");
    const Built built = build_runners(to_build, jobs, grading_build_dir(), true, device.emulated && rubric.lessons.measure);
    account.emplace("integrity");
    g.phases["build"] = seconds_since(phase_started);
    phase_started = std::chrono::steady_clock::now();
    // The integrity checks read what the compilers made of each file: a rung that uses what it may
    // not (integrity.hpp) is not run and earns nothing.
    std::map<std::string, std::vector<Finding>> findings;
    if (skip_integrity) {
        g.sandbox += "; the integrity checks were SKIPPED (--skip-integrity)";
        std::cout << "  warning: the integrity checks are skipped (--skip-integrity): a grade for testing the sandbox\n";
    } else {
        for (const auto& [id, compiled] : built.compiled)
            if (auto found = check_integrity(lab::Registry::kit().get(id), compiled); !found.empty()) {
                for (const Finding& f : found) std::cout << "  integrity: " << f.text() << '\n';
                findings[id] = std::move(found);
            }
    }
    g.phases["integrity"] = seconds_since(phase_started);
    account.reset();
    phase_started = std::chrono::steady_clock::now();
    const std::string work = grading_build_dir() + "/grading/run";
    const auto& rungs = lab::Registry::kit().rungs();
    g.rungs.resize(rungs.size());
    // What each rung is before anything runs: reused, or submitted, built and let through or why not.
    for (std::size_t k = 0; k < rungs.size(); ++k) {
        const lab::RungInfo& rung = rungs[k];
        RungResult& r = g.rungs[k];
        if (reused.count(rung.id)) {
            r = reused.at(rung.id);
            r.title = rung.title;
            r.reused = true;
            continue;
        }
        r.id = rung.id;
        r.title = rung.title;
        r.submitted = intake.files.count(rung.id) > 0;
        r.built = built.runners.count(rung.id) > 0 && !findings.count(rung.id);  // built, and its runner used
        if (built.logs.count(rung.id)) r.build_log = built.logs.at(rung.id);
        if (unfinished.count(rung.id)) r.build_log = unfinished.at(rung.id);
        if (refused.count(rung.id)) r.build_log = refused.at(rung.id);
        if (findings.count(rung.id)) {
            r.build_log.clear();
            for (const Finding& f : findings.at(rung.id)) {
                r.findings.push_back(f.text());
                r.build_log += f.text() + "\n";
            }
        }
        r.unrun = !r.submitted                ? "not submitted"
                  : refused.count(rung.id)    ? "refused by the screen (its build log says why)"
                  : unfinished.count(rung.id) ? "unfinished (TODO lines left)"
                  : findings.count(rung.id)   ? "refused by the integrity checks"
                  : !r.built                  ? "did not build"
                                              : "";
    }
    // Until the sanitizer's tools end, each rung's cases and tools share the GPU with other gradings'
    // while they run (a hold a rung); then this grading has it alone, for the rungs to run again and
    // for the speed (gpu_lock.hpp).
    GpuShare share(gpu_lock_path());
    phase_started = std::chrono::steady_clock::now();
    // The sanitizer's passes and the lessons, beside the cases on a GPU (beside_cases.hpp).
    BesideCases beside(g, rubric, built, planned, cpu_orders, limits, jobs, work, share);
    // Rungs are graded side by side: a few at once on a GPU (each runner has its own context, and no
    // speed is measured here), one at a time on the CPU backend, whose runners use every core.
    const int rungs_at_once = device.emulated ? 1 : rungs_side_by_side(planned);
    limits.check_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / rungs_at_once);
    std::mutex printing;
    // Side by side, the longest first, so that the last to finish is a short one: a rung's work is its
    // cases' elements, each case counted as at least 2^16 (a small case costs its launch and its
    // copies). One at a time, in the registry's order.
    std::vector<std::size_t> longest_first(rungs.size());
    std::vector<double> rung_work(rungs.size(), 0.0);
    for (std::size_t k = 0; k < rungs.size(); ++k) {
        longest_first[k] = k;
        if (planned.count(rungs[k].id))
            for (const PlannedCase& p : planned.at(rungs[k].id))
                if (p.skip.empty()) rung_work[k] += static_cast<double>(std::max<std::size_t>(p.c.n, std::size_t{1} << 16));
    }
    if (rungs_at_once > 1)
        std::stable_sort(longest_first.begin(), longest_first.end(), [&](std::size_t a, std::size_t b) { return rung_work[a] > rung_work[b]; });
    // Rung k's cases run and scored; `again`: a second run, with the GPU alone.
    const auto grade_cases = [&](std::size_t k, bool again) {
        const lab::RungInfo& rung = rungs[k];
        RungResult& r = g.rungs[k];
        if (!rubric.assigned(rung.id)) return;  // (dropped before the reports)
        if (r.reused) {
            const std::lock_guard<std::mutex> lock(printing);
            std::printf("  %-20s reused (unchanged since %s)\n", r.id.c_str(), r.graded_at.c_str());
            return;
        }
        // The rung's time is run_and_check's, which its phases (case_phases) cover part by part.
        const lab::process::Account cases_account("cases");
        if (r.built) {
            RungTimes times;
            const GpuShare::Hold hold = share.hold();  // (nothing when run again, the GPU alone)
            const auto rung_started = std::chrono::steady_clock::now();
            r.cases = run_and_check(rung, built.runners.at(rung.id), planned.at(rung.id), grading_orders(), limits,
                                    work + "/" + rung.id, replay_command, &times);
            r.seconds = seconds_since(rung_started);
            case_phases(r, times);
            r.reuse_key = key_of(rung.id);
            r.graded_at = g.graded_at;
        }
        score_rung(r, rubric, !device.emulated);
        {
            // The cases only: the points come once every part is in (the table at the end, as the reports give them).
            const std::lock_guard<std::mutex> lock(printing);
            std::printf("  %-20s %s%s\n", r.id.c_str(), again ? "again, the GPU alone: " : "",
                        !r.built ? r.unrun.c_str()
                                 : ("cases: " + std::to_string(r.count("passed")) + " passed, " + std::to_string(r.count("failed")) +
                                    " failed" + (r.count("skipped") ? ", " + std::to_string(r.count("skipped")) + " not run here" : "") +
                                    " (" + std::to_string(static_cast<int>(r.seconds)) + " s)")
                                       .c_str());
            std::fflush(stdout);
        }
        if (again) beside.cases_again(k);
        else beside.cases_ended(k);
    };
    side_by_side(rungs.size(), rungs_at_once, [&](std::size_t order) { grade_cases(longest_first[order], false); });
    g.phases["cases"] = seconds_since(phase_started);
    phase_started = std::chrono::steady_clock::now();
    beside.gpu_passes_ended();
    if (!device.emulated) g.phases["gpu_wait"] = share.waited();
    if (device.emulated) beside.finish();
    g.phases["after_cases"] = seconds_since(phase_started);
    if (!device.emulated) {
        // The GPU alone from here. A rung whose verdicts sharing the GPU with another grading could
        // have changed runs again first: that run's verdicts are the rung's. Only what sharing the
        // GPU could have changed (run_again_alone, gpu_lock.hpp).
        const bool shared = share.shared_with_another();
        std::vector<std::size_t> again;
        for (std::size_t k = 0; k < rungs.size(); ++k)
            if (shared && g.rungs[k].built && !g.rungs[k].reused && run_again_alone(g.rungs[k].cases, beside.tools(k)))
                again.push_back(k);
        // A grading with nothing to run again and no kernel to time (every rung failed a visible
        // case, or none built) never waits for the GPU alone: behind a kernel that holds the GPU
        // until its case limit, it would wait minutes to time nothing.
        phase_started = std::chrono::steady_clock::now();
        std::optional<GpuLock> alone;
        if (!again.empty() || speed_to_time(g, rubric)) {
            alone.emplace(share.path());
            share.set_alone(true);
        }
        g.phases["speed_wait"] = seconds_since(phase_started);
        if (!again.empty()) {
            phase_started = std::chrono::steady_clock::now();
            std::cout << "  " << again.size() << " rung(s) ran short of the GPU's memory, or failed a case beside a race, while another "
                         "grading shared the GPU: run again with it alone\n";
            side_by_side(again.size(), rungs_at_once, [&](std::size_t i) { grade_cases(again[i], true); });
            g.phases["again"] = seconds_since(phase_started);
        }
        phase_started = std::chrono::steady_clock::now();
        account.emplace("speed");
        grade_speed(g, rubric, built, limits, work);
        account.reset();
        g.phases["speed"] = seconds_since(phase_started);
        // The GPU's part is over: another grading may take it while the thread orders and the
        // lessons, on the CPU alone, end here.
        alone.reset();
        phase_started = std::chrono::steady_clock::now();
        beside.finish();
        g.phases["after_speed"] = seconds_since(phase_started);
    }
    g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    g.cpu = cpu_of_this_grading();
    // Only the rungs the course assigns are graded and reported.
    g.rungs.erase(std::remove_if(g.rungs.begin(), g.rungs.end(), [&](const RungResult& r) { return !rubric.assigned(r.id); }),
                  g.rungs.end());
    if (std::fabs(g.max() - rubric.max()) > 1e-6)
        throw std::logic_error("the grading's maximum (" + std::to_string(g.max()) + ") is not the rubric's (" +
                               std::to_string(rubric.max()) + "): a part is missing or has other points");
    g.hints = hints_verdict(intake.hints_record, g.rungs, [&](int level) { return rubric.hints.cost(level); });
    if (g.hints.total_off() > 0) std::cout << "  hints: " << g.hints.total_off() << " points off (the rubric's [hints])\n";
    write_reports(g, out_dir);
    std::cout << console_table(g);
    std::printf("lab-grade: %.2f / %.2f points in %.0f s; reports in %s (replay this run with --seed %s)\n", g.score(),
                g.max(), g.seconds, out_dir.c_str(), g.seed_text().c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    // lab-grade's own CUDA context (the ceiling, the kit's baselines) with one work queue, as the
    // sandbox gives every runner and tool (sandbox.cpp, passed_environment, says why).
    const auto [queues, count] = lab::process::cuda_work_queues();
    ::setenv(queues.c_str(), count.c_str(), 1);
    // Named as it was called: ./lab hands its commands here (LAB_COMMAND_NAME), and a usage should
    // say `./lab grade-all`, never the build tree's program.
    const char* called = std::getenv("LAB_COMMAND_NAME");
    CLI::App app{"lab-grade: grades CUDA reduction submissions out of process (grader/README.md)",
                 called && *called ? called : "lab-grade"};
    app.require_subcommand(1);
    std::string submission, rubric, out = "grade-report", seed;
    int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    auto* grade_cmd = app.add_subcommand("grade", "grade a submission: a directory, a git checkout, a .zip or a .tar.gz");
    grade_cmd->add_option("submission", submission, "the submission")->required();
    grade_cmd->add_option("--rubric", rubric, "the course's rubric (default: grader/rubric.toml)");
    grade_cmd->add_option("--out", out, "where the reports go")->capture_default_str();
    grade_cmd->add_option("--seed", seed, "replay a grading run exactly: the seed its report gives");
    grade_cmd->add_option("--jobs", jobs, "build parallelism")->capture_default_str();
    std::string submitted_at, student;
    grade_cmd->add_option("--submitted-at", submitted_at,
                          "when it was handed in (ISO 8601, 2026-12-01T23:59:00Z), as the LMS or CI platform recorded it: "
                          "the rubric's [late] policy applies to it");
    grade_cmd->add_option("--student", student, "the student's id, for the late policy's extensions");
    std::string reuse;
    grade_cmd->add_option("--reuse", reuse,
                          "an earlier grading's report folder (its grade.json and graded/): a rung whose file is byte for "
                          "byte the same, graded with the same kit, rubric, seed and device, keeps its result there");
    bool skip_integrity = false;
    grade_cmd->add_flag("--skip-integrity", skip_integrity,
                        "run what the integrity checks would refuse (to test the sandbox alone); every report says so");

    std::string rung, op = "sum", input, replay_seed, file, scheme;
    std::uint64_t n = 0, offset = 0, rows = 0, cols = 0;
    unsigned block = 0, grid = 0;
    auto* replay_cmd = app.add_subcommand("replay", "run one case, as a grading report gives it, on your own kernel");
    replay_cmd->add_option("rung", rung, "the rung: 07 or 07_coarsening")->required();
    replay_cmd->add_option("--op", op, "sum, max, min, product; the row rung's dot, softmax, softmax_online, layer_norm")
        ->capture_default_str();
    replay_cmd->add_option("--input", input, "the input kind (float, int, float_spike, ...)")->required();
    auto* n_option = replay_cmd->add_option("--n", n, "elements (a rung that reduces an array)");
    replay_cmd->add_option("--rows", rows, "rows of the matrix (the row rung)");
    replay_cmd->add_option("--cols", cols, "row length (the row rung)");
    replay_cmd->add_option("--block", block, "threads per block")->required();
    replay_cmd->add_option("--seed", replay_seed, "the case's seed, as the report gives it")->required();
    replay_cmd->add_option("--grid", grid, "blocks (grid-stride rungs)");
    replay_cmd->add_option("--offset", offset, "elements the input starts into its buffer");
    std::string schemes = "rungs.json's \"variants\"";
    try {  // the help names them; a registry that does not load is reported by the command that needs it
        schemes.clear();
        for (const auto& rung : lab::Registry::kit().rungs())
            if (!rung.variants.empty()) schemes += (schemes.empty() ? "" : "; ") + rung.number + ": " + rung.describe_variants();
    } catch (const std::exception&) {
        schemes = "rungs.json's \"variants\"";
    }
    replay_cmd->add_option("--scheme", scheme, "a driver rung's scheme (" + schemes + ")");
    replay_cmd->add_option("--file", file, "the kernel file (default: the kit's exercises/NN_name.cu)");
#ifndef LAB_RELEASE
    lab::batch::BatchOptions batch;
    batch.jobs = jobs;
    auto* all_cmd = app.add_subcommand(
        "grade-all", "grade a class: a folder with one submission per student (a folder, a git checkout, a .zip or a "
                     ".tar.gz), or a CSV of student,path; see grader/batch/README.md");
    all_cmd->add_option("source", batch.source, "the class's folder, or a CSV file of student,path rows")->required();
    all_cmd->add_option("--out", batch.out, "where the gradebook, the class summary and every student's reports go")
        ->capture_default_str();
    all_cmd->add_option("--rubric", batch.rubric, "the course's rubric (default: grader/rubric.toml)");
    all_cmd->add_option("--seed", batch.seed, "the class's seed (each student's is drawn from it and the student's id); "
                                              "default: the one OUT was graded with, else a fresh one");
    all_cmd->add_option("--jobs", batch.jobs, "build parallelism of each grading")->capture_default_str();
    all_cmd->add_flag("--force", batch.force, "grade everyone again (a new seed unless --seed is given)");
    all_cmd->add_option("--lms-roster", batch.lms_roster,
                        "a roster CSV of LMS ids (student, and canvas_id / sis_user_id / sis_login_id, email / idnumber): "
                        "writes OUT/canvas.csv and OUT/moodle.csv for the LMS's grade import");
    all_cmd->add_option("--assignment", batch.lms_assignment,
                        "the assignment's name: the class page's title and the LMS export's column (kept in OUT; first "
                        "default: CUDA reduction lab)");
    std::string report_out;
    auto* report_cmd = app.add_subcommand("class-report", "write a graded class's gradebook and summary again from its grades");
    report_cmd->add_option("out", report_out, "grade-all's output folder")->required();
    std::string similarity_out;
    lab::batch::SimilarityOptions similarity;
    auto* similarity_cmd = app.add_subcommand(
        "similarity", "pairs of a graded class's submissions alike beyond the kit's own code (OUT/similarity.html, .md)");
    similarity_cmd->add_option("out", similarity_out, "grade-all's output folder")->required();
    similarity_cmd->add_option("--threshold", similarity.threshold, "the least score listed (shared fingerprints over the fewer)")
        ->capture_default_str()->check(CLI::Range(0.0, 1.0));
    similarity_cmd->add_option("--min-shared", similarity.min_shared, "the fewest shared fingerprints listed")
        ->capture_default_str()->check(CLI::Range(1, 100000));
    std::string lms_out, lms_roster, lms_assignment;
    auto* lms_cmd = app.add_subcommand("lms-export", "a graded class's totals for Canvas and Moodle (OUT/canvas.csv, OUT/moodle.csv)");
    lms_cmd->add_option("out", lms_out, "grade-all's output folder")->required();
    lms_cmd->add_option("--roster", lms_roster, "the roster CSV of LMS ids (grader/batch/README.md)")->required();
    lms_cmd->add_option("--assignment", lms_assignment, "the assignment's name in the LMS (default: the one OUT was graded with)");
    std::string workers = "1";
    all_cmd->add_option("--workers", workers,
                        "gradings at once: a number, or gpus (--per-gpu on each visible GPU); each worker after the first "
                        "has a build tree of its own")
        ->capture_default_str();
    all_cmd->add_option("--per-gpu", batch.per_gpu,
                        "workers sharing one GPU, with --workers gpus, and the most a number of workers may put on one: "
                        "their cases and sanitizer tools share it, each speed is timed with it alone")
        ->check(CLI::Range(1, 8))
        ->capture_default_str();
    all_cmd->add_flag("--no-reuse", batch.no_reuse,
                      "grade every rung of a changed submission again (by default a rung whose file did not change keeps "
                      "its grade)");
    all_cmd->add_flag("--slurm", batch.slurm.on, "grade as one Slurm array job (sbatch) instead of on this machine");
    all_cmd->add_option("--partition", batch.slurm.partition, "Slurm: the partition");
    all_cmd->add_option("--gres", batch.slurm.gres, "Slurm: each task's generic resources (gpu:1 on a GPU cluster)");
    all_cmd->add_option("--time", batch.slurm.time, "Slurm: each task's time limit");
    all_cmd->add_option("--account", batch.slurm.account, "Slurm: the account");
    all_cmd->add_option("--sbatch-arg", batch.slurm.sbatch_args, "Slurm: one more #SBATCH line's option (repeatable)");
    all_cmd->add_option("--per-task", batch.slurm.per_task, "Slurm: submissions per array task")
        ->capture_default_str()->check(CLI::Range(1, 100000));
    all_cmd->add_option("--max-running", batch.slurm.max_running, "Slurm: tasks running at once (the array's %N; 0: no limit)")
        ->check(CLI::NonNegativeNumber);
    all_cmd->add_option("--retries", batch.slurm.retries, "Slurm: rounds again for what a round left ungraded")
        ->capture_default_str()->check(CLI::Range(0, 10));
    all_cmd->add_option("--node-tree", batch.slurm.node_tree,
                        "Slurm: grade in a build tree of the kit on each node's own disk, under this prefix "
                        "(configured and built the first time; default: this tree, on the shared file system)");
    all_cmd->add_option("--poll", batch.slurm.poll_seconds, "Slurm: seconds between looks at the queue")
        ->capture_default_str()->check(CLI::PositiveNumber);
    std::string task_out, round;
    int task = 0, per_task = 1;
    auto* task_cmd = app.add_subcommand("grade-task", "one task of grade-all --slurm's array job (the job script runs it)");
    task_cmd->add_option("out", task_out, "grade-all's --out")->required();
    task_cmd->add_option("--round", round, "the round's list of students")->required();
    task_cmd->add_option("--task", task, "the array task's index")->required();
    task_cmd->add_option("--per-task", per_task, "students per task")->capture_default_str();
    task_cmd->add_option("--jobs", jobs, "build parallelism")->capture_default_str();
#endif
    auto* device_cmd = app.add_subcommand("device", "print the device this process finds (the sandbox check runs it)");
    auto* sandbox_cmd =
        app.add_subcommand("sandbox", "say how submissions are confined here, and whether CUDA starts inside");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        app.exit(e);  // (its words, or the help)
        return e.get_exit_code() == 0 ? 0 : 2;  // a usage error is 2, as lab-grade's own checks give
    }
    try {
        if (*device_cmd) return print_device();
        if (*sandbox_cmd) return print_sandbox();
        if (*grade_cmd) return grade(submission, rubric, out, seed, jobs, skip_integrity, reuse, submitted_at, student);
#ifndef LAB_RELEASE
        if (*all_cmd) {
            batch.grader = self_path();
            batch.gpus = visible_gpus();
            if (workers == "gpus") {
                batch.workers_per_gpu = true;
            } else {
                std::size_t used = 0;
                try {
                    batch.workers = std::stoi(workers, &used);
                } catch (const std::exception&) {
                    used = 0;
                }
                if (used == 0 || used != workers.size()) {
                    std::cerr << "lab-grade: --workers " << workers << ": give a number, or gpus\n";
                    return 2;
                }
            }
            return lab::batch::grade_all(batch);
        }
        if (*report_cmd) return lab::batch::class_report(report_out);
        if (*similarity_cmd) return lab::batch::similarity_report(similarity_out, similarity);
        if (*lms_cmd) {
            const lab::batch::LmsExport done = lab::batch::export_lms(
                lms_out, lms_roster, lms_assignment.empty() ? lab::batch::class_assignment(lms_out) : lms_assignment);
            lab::batch::print_lms_export(done);
            return 0;
        }
        if (*task_cmd) return lab::batch::grade_task(task_out, round, task, per_task, self_path(), jobs);
#endif
        return replay(rung, op, input, n, block, replay_seed, grid, offset, scheme, file, n_option->count() > 0, rows,
                      cols);
    } catch (const std::exception& e) {
        std::cerr << "lab-grade: " << e.what() << '\n';
        return 2;
    }
}
