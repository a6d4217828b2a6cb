// TRUSTED SIDE. See pipeline.hpp.
#include "pipeline.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "builder.hpp"
#include "categories.hpp"
#include "lab/device.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "lab/todos.hpp"
#include "plan.hpp"
#include "report_facts.hpp"
#include "reports.hpp"
#include "reuse.hpp"
#include "sandbox.hpp"
#include "screen.hpp"

namespace lab::grading {

namespace fs = std::filesystem;

const RungInfo& Grading::rung(std::size_t k) const
{
    return Registry::kit().rungs().at(k);
}

std::string device_name()
{
    const lab::DeviceStatus& d = lab::device_status();
    if (d.emulated) return "the CPU backend (no GPU)";
    return d.usable ? d.name : "no usable GPU";
}

void below_the_gpu_work()
{
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
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

// A GPU that nvidia-smi shows is no proof that a sandboxed process can use it (without /sys, cuInit fails).
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

namespace {

std::uint64_t fresh_seed()
{
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device() ^
           static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
}

// The skeleton's TODO lines left in a submitted file, as the suites list them; "" when none.
std::string open_todos(const std::string& id, const std::string& contents)
{
    fs::create_directories(grading_build_dir() + "/grading");
    // One file per process: two gradings may run at once (the build lock comes later).
    const std::string path = grading_build_dir() + "/grading/todo-check-" + std::to_string(getpid()) + ".cu";
    std::ofstream(path, std::ios::trunc) << contents;
    const auto todos = lab::find_todos(path);
    fs::remove(path);
    return todos.empty() ? "" : lab::describe_todos("exercises/" + id + ".cu", todos, lab::Registry::kit().get(id).number);
}

// The files taken in, the rungs the rubric assigns, every category's plan (the cases are chosen
// before any submitted code runs), and the sandbox made and checked.
void intake(Grading& run)
{
    Grade& g = run.g;
    const GradeRequest& request = run.request;
    run.rubric = load_rubric(request.rubric_path.empty() ? lab::kit_path("grader/rubric.toml") : request.rubric_path);
    check_rubric_groups(run.rubric);
    const Rubric& rubric = run.rubric;
    g.submission = request.submission;
    g.backend = LAB_BACKEND_NAME;
    g.device = device_name();
    g.seed = request.seed_text.empty() ? fresh_seed() : parse_seed(request.seed_text);
    g.rubric = rubric.path + (rubric.course.empty() ? "" : " (" + rubric.course + ")");
    g.rubric_name = fs::path(rubric.path).filename().string() + (rubric.course.empty() ? "" : " (" + rubric.course + ")");
    g.hidden_seed = hidden_seed(rubric, g.seed);
    g.hidden_details = rubric.hidden_details;
    g.proportional = rubric.proportional;
    g.left_out = groups_left_out(rubric, run.gpu);
    g.graded_at = lab::format_time(std::time(nullptr));
    g.late = late_verdict(rubric, request.submitted_at, request.student);  // a bad time is refused before anything runs
    std::cout << "lab-grade: " << request.submission << ", seed " << g.seed_text() << ", on " << g.device << '\n';

    run.intake = take_in(request.submission);
    Intake& intake = run.intake;
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
    // What this machine leaves out, said before anything runs: no group is dropped without a word.
    for (const std::string& group : g.left_out) std::cout << "  left out here: " << group << '\n';
    for (const auto& category : run.categories) category->plan(run);

    // This run's reports and rubric are out of the sandbox's sight too (sandbox.hpp).
    fs::create_directories(request.out_dir);
    hide_in_sandbox(request.out_dir);
    hide_in_sandbox(rubric.path);
    // The earlier grading too: its report holds the expected values of the cases it failed, which
    // this grading (the same seed) runs again.
    if (!request.reuse_dir.empty() && fs::is_directory(request.reuse_dir)) hide_in_sandbox(request.reuse_dir);
    // Nothing submitted runs unless it can be confined, and CUDA starts inside the sandbox as it does
    // outside (else every rung would fail for the sandbox's sake, not the submission's).
    const IsolationChoice& confined = isolation();
    if (!confined.error.empty()) throw std::runtime_error(confined.error);
    run.limits = limits_of(rubric);
    g.sandbox = isolation_summary(run.limits.runner);
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
}

// Each taken file: built, unfinished or refused; the rungs an earlier grading's results stand for.
void screen(Grading& run)
{
    // A file that still has the skeleton's TODO lines is unfinished: not built, no points (the suites
    // refuse to run it too; its stubs are there to compile, not to be graded). One that reaches into
    // the kit's code is refused (screen.hpp).
    for (const auto& [id, contents] : run.intake.files) {
        const std::string todos = open_todos(id, contents);
        std::string problems;
        for (const auto& p : screen_source(contents)) problems += "exercises/" + id + ".cu " + p + "\n";
        if (!problems.empty()) run.refused[id] = problems;
        else if (!todos.empty()) run.unfinished[id] = todos;
        else run.to_build[id] = contents;
    }
    // Grading again (--reuse): a rung whose file and whose key are unchanged keeps its earlier result,
    // and is neither built nor run. Every file taken is kept in OUT/graded/ for the next time.
    run.rubric_text = lab::read_file(run.rubric.path);
    // The kit's fingerprint reads the kit's sources and the compilers (seconds on a loaded machine):
    // hashed here, before the build, and not inside the first rung's time.
    kit_fingerprint();
    run.key_of = [&run](const std::string& id) { return reuse_key(run.g, run.rubric_text, run.request.skip_integrity, id); };
    if (!run.request.reuse_dir.empty()) {
        run.reused = reusable_rungs(run.request.reuse_dir, run.to_build, run.key_of);
        for (const auto& [id, r] : run.reused) {
            run.to_build.erase(id);
            std::cout << "  reuse: " << id << " unchanged since " << r.graded_at << ": its earlier result stands\n";
        }
    }
    const std::string out_dir = run.request.out_dir;
    fs::create_directories(out_dir + "/graded");
    for (const auto& [id, contents] : run.intake.files) {
        std::ofstream file(out_dir + "/graded/" + id + ".cu", std::ios::binary | std::ios::trunc);
        file << contents;
        if (!file) throw std::runtime_error("cannot write " + out_dir + "/graded/" + id + ".cu");
    }
}

// One runner per rung (and what the categories need besides), in the sandbox.
void build(Grading& run)
{
    BuildNeeds needs;
    for (const auto& category : run.categories) {
        const BuildNeeds n = category->needs(run);
        needs.cpu_runners = needs.cpu_runners || n.cpu_runners;
        needs.explainers = needs.explainers || n.explainers;
    }
    // On a GPU machine the thread orders and the lessons need the files built for the CPU backend
    // too: that build starts now, below the GPU build and the cases in priority, on the cores they
    // leave. (A file the GPU build or the integrity checks refuse is built for nothing: its rung
    // never runs.)
    if (run.gpu && (needs.cpu_runners || needs.explainers) && !run.to_build.empty())
        run.cpu_build = std::make_unique<CpuBackendBuild>(run.to_build, run.request.jobs, needs.cpu_runners, needs.explainers);
    std::cout << "  building " << run.to_build.size() << " runners\n" << std::flush;
    // A pipeline: the cases of each rung start as soon as its runner is linked (ready(k), in the
    // categories), while the others still build (the reference graded on 2 cores without a GPU: 42 s
    // where building first took 52). LAB_GRADE_PIPELINE=0 builds every runner first.
    const char* pipeline = std::getenv("LAB_GRADE_PIPELINE");
    if (!run.to_build.empty() && !(pipeline && std::string(pipeline) == "0")) {
        for (const auto& [id, contents] : run.to_build) {  // each rung's entries, there from the start
            run.built.runners[id];
            run.built.logs[id];
            run.findings[id];
        }
        run.building = std::make_unique<RunnersBuilding>(run.to_build, run.request.jobs, !run.gpu && needs.explainers, !run.gpu);
        return;
    }
    // Without a GPU this tree is the CPU backend's: the explain programs build with the runners, and
    // the runners use every core.
    const lab::process::Account account("build");
    run.built = build_runners(run.to_build, run.request.jobs, grading_build_dir(), true, !run.gpu && needs.explainers);
}

// What the compilers made of rung `id`'s file, against what its rung allows; its findings, said.
std::vector<Finding> integrity_of(const Grading& run, const std::string& id, const CompiledRung& compiled)
{
    if (run.request.skip_integrity) return {};
    std::vector<Finding> found = check_integrity(lab::Registry::kit().get(id), compiled);
    for (const Finding& f : found) std::cout << "  integrity: " << f.text() << '\n';
    return found;
}

// What the compilers made of each file: a rung that uses what it may not (integrity.hpp) is not
// run and earns nothing.
void integrity(Grading& run)
{
    const lab::process::Account account("integrity");
    if (run.request.skip_integrity) {
        run.g.sandbox += "; the integrity checks were SKIPPED (--skip-integrity)";
        std::cout << "  warning: the integrity checks are skipped (--skip-integrity): a grade for testing the sandbox\n";
        return;
    }
    if (run.building) return;  // each rung's, once it is linked (ready(k))
    for (const auto& [id, compiled] : run.built.compiled)
        if (auto found = integrity_of(run, id, compiled); !found.empty()) run.findings[id] = std::move(found);
}

// What rung k is before anything of it runs: reused, or submitted, built and let through or why not.
// (Reads only rung k's entries: on a GPU other rungs' are being written meanwhile.)
void rung_result(Grading& run, std::size_t k)
{
    const lab::RungInfo& rung = run.rung(k);
    RungResult& r = run.g.rungs[k];
    if (run.reused.count(rung.id)) {
        r = run.reused.at(rung.id);
        r.title = rung.title;
        r.reused = true;
        return;
    }
    const auto entry = [&](const auto& map) { return map.count(rung.id) && !map.at(rung.id).empty(); };
    r.id = rung.id;
    r.title = rung.title;
    r.submitted = run.intake.files.count(rung.id) > 0;
    r.built = entry(run.built.runners) && !entry(run.findings);  // built, and its runner used
    if (entry(run.built.logs)) r.build_log = run.built.logs.at(rung.id);
    if (run.unfinished.count(rung.id)) r.build_log = run.unfinished.at(rung.id);
    if (run.refused.count(rung.id)) r.build_log = run.refused.at(rung.id);
    if (entry(run.findings)) {
        r.build_log.clear();
        for (const Finding& f : run.findings.at(rung.id)) {
            r.findings.push_back(f.text());
            r.build_log += f.text() + "\n";
        }
    }
    r.unrun = !r.submitted                        ? "not submitted"
              : run.refused.count(rung.id)        ? "refused by the screen (its build log says why)"
              : run.unfinished.count(rung.id)     ? "unfinished (TODO lines left)"
              : entry(run.findings)               ? "refused by the integrity checks"
              : !r.built                          ? "did not build"
                                                  : "";
}

// Rung k of a pipelined build: waits for its runner (or the build's end), checks its integrity and
// fills its entries, rung k's alone.
void settle_built(Grading& run, std::size_t k)
{
    const std::string& id = run.rung(k).id;
    if (!run.building || !run.to_build.count(id)) return;
    RunnersBuilding::Rung got = run.building->wait_for(id);
    const lab::process::Account account("integrity");
    run.built.runners.at(id) = got.runner;
    run.built.logs.at(id) = got.log;
    if (got.compiled) run.findings.at(id) = integrity_of(run, id, *got.compiled);
}

// A beside_cases category's pass with the pool that runs it, and the span of its phase.
struct Lane {
    Category* category;
    Pass pass;
    std::unique_ptr<Beside> pool;
};

// Every category over the built rungs: the cases; beside them each rung's passes (on a GPU a
// rung's as soon as its cases are in); the GPU alone for what runs again and for the speed; then
// what the CPU backend's passes left, kept into each rung and scored.
void categories(Grading& run)
{
    Grade& g = run.g;
    g.rungs.resize(lab::Registry::kit().rungs().size());
    // Each rung's result once its build is known: at once where nothing builds in the background;
    // else when the cases category first asks for it (ready(k)), and every rung's by the cases' end.
    using Clock = std::chrono::steady_clock;
    std::vector<std::once_flag> settled(g.rungs.size());
    std::function<void(std::size_t)> became_ready = [](std::size_t) {};
    std::once_flag first;
    std::optional<Clock::time_point> first_linked;  // when the first rung's runner was there to run
    for (std::size_t k = 0; k < g.rungs.size(); ++k)
        if (!run.building || !run.to_build.count(run.rung(k).id)) std::call_once(settled[k], [&] { rung_result(run, k); });
    run.ready = [&](std::size_t k) {
        std::call_once(settled[k], [&] {
            settle_built(run, k);
            std::call_once(first, [&] { first_linked = Clock::now(); });
            rung_result(run, k);
        });
        became_ready(k);
    };
    run.work = grading_build_dir() + "/grading/run";
    // Until the GPU passes end, each rung's cases and GPU passes share the GPU with other gradings'
    // while they run (a hold a rung); then this grading has it alone, for the rungs to run again and
    // for the speed (gpu_lock.hpp).
    run.share = std::make_unique<GpuShare>(gpu_lock_path());
    for (const auto& category : run.categories) category->start(run);

    std::mutex spans;
    std::map<std::string, std::pair<Clock::time_point, Clock::time_point>> phase_spans;
    const auto spanned = [&](const std::string& phase, Clock::time_point started) {
        const std::lock_guard<std::mutex> lock(spans);
        const Clock::time_point now = Clock::now();
        const auto [it, fresh] = phase_spans.try_emplace(phase, started, now);
        if (!fresh) it->second = {std::min(it->second.first, started), std::max(it->second.second, now)};
    };
    const auto run_pass = [&](const Pass& pass, std::size_t k) {
        if (run.gpu && !pass.on_gpu) below_the_gpu_work();
        const lab::process::Account account(pass.account);
        const Clock::time_point started = Clock::now();
        // A GPU pass shares the GPU, a rung at a time (nothing when run again with the GPU alone, or on
        // the CPU backend).
        const GpuShare::Hold hold = pass.on_gpu ? run.share->hold() : GpuShare::Hold{};
        pass.run(k);
        spanned(pass.phase, started);
    };
    // Declared after what its pools' work uses, so that they stop (waiting for it) before that goes.
    std::vector<std::unique_ptr<Lane>> lanes;
    for (const auto& category : run.categories) {
        if (category->when() != When::beside_cases) continue;
        // Each pass has a pool of its own: the CPU's wait for the CPU backend's build, and the GPU's,
        // which hold the speed back, must not wait behind them.
        for (Pass& pass : category->passes()) {
            Lane& lane = *lanes.emplace_back(std::make_unique<Lane>(Lane{category.get(), std::move(pass), nullptr}));
            const Pass* p = &lane.pass;
            lane.pool = std::make_unique<Beside>(run.gpu ? p->rungs_at_once : 1, [&run_pass, p](std::size_t k) { run_pass(*p, k); });
        }
    }
    const auto queue = [&](Lane& lane, std::size_t k) {
        if (lane.category->wanted(run, k)) lane.pool->add(k);
    };
    // On a GPU, the passes that need no case's verdict start with each rung's cases.
    if (run.gpu)
        became_ready = [&](std::size_t k) {
            for (auto& lane : lanes)
                if (lane->pass.at_once) queue(*lane, k);
        };

    auto phase_started = Clock::now();
    for (const auto& category : run.categories)
        if (category->when() == When::cases)
            category->run(run, [&](std::size_t k) {
                if (run.gpu)
                    for (auto& lane : lanes)
                        if (!lane->pass.at_once) queue(*lane, k);
            });
    // Every rung settled (the cases category asks for each it runs), and the build over. Its whole
    // span is runners_build, beside the others; until the first runner was linked the grading could
    // only wait for it (build), and the cases phase is what came after.
    for (std::size_t k = 0; k < g.rungs.size(); ++k) run.ready(k);
    if (run.building) {
        g.phases["runners_build"] = run.building->finish();
        run.built.explainers = run.building->built().explainers;  // (on the CPU backend, for the lessons to come)
        const Clock::time_point linked = first_linked.value_or(Clock::now());
        g.phases["build"] += std::chrono::duration<double>(linked - phase_started).count();
        phase_started = linked;
    }
    g.phases["cases"] = seconds_since(phase_started);

    phase_started = Clock::now();
    if (run.gpu) {
        for (auto& lane : lanes)
            if (lane->pass.on_gpu) lane->pool->finish();
        g.phases["gpu_wait"] = run.share->waited();
    } else {
        // On the CPU backend, whose runners use every core: each category's passes in turn, every rung's.
        for (const auto& category : run.categories) {
            for (auto& lane : lanes)
                if (lane->category == category.get())
                    for (std::size_t k = 0; k < g.rungs.size(); ++k) queue(*lane, k);
            for (auto& lane : lanes)
                if (lane->category == category.get()) lane->pool->finish();
        }
    }
    g.phases["after_cases"] = seconds_since(phase_started);

    std::optional<GpuLock> alone;
    if (run.gpu) {
        // The GPU alone from here. A rung whose verdicts sharing the GPU with another grading could
        // have changed runs again first: that run's verdicts are the rung's. Only what sharing the
        // GPU could have changed (gpu_lock.hpp, run_again_alone).
        const bool shared = run.share->shared_with_another();
        std::vector<std::size_t> again;
        for (std::size_t k = 0; k < g.rungs.size(); ++k) {
            if (!shared || !g.rungs[k].built || g.rungs[k].reused) continue;
            bool could = false;
            for (const auto& category : run.categories) could = could || category->sharing_could_change(run, k);
            if (could) again.push_back(k);
        }
        // A grading with nothing to run again and nothing to time (every rung failed a visible case,
        // or none built) never waits for the GPU alone: behind a kernel that holds the GPU until its
        // case limit, it would wait minutes to time nothing.
        bool wanted_alone = !again.empty();
        for (const auto& category : run.categories)
            if (category->when() == When::after_cases) wanted_alone = wanted_alone || category->needs_gpu_alone(run);
        phase_started = Clock::now();
        if (wanted_alone) {
            alone.emplace(run.share->path());
            run.share->set_alone(true);
        }
        g.phases["speed_wait"] = seconds_since(phase_started);
        if (!again.empty()) {
            phase_started = Clock::now();
            std::cout << "  " << again.size() << " rung(s) ran short of the GPU's memory, or failed a case beside a race, while another "
                         "grading shared the GPU: run again with it alone\n";
            side_by_side(again.size(), run.rungs_at_once, [&](std::size_t i) {
                const std::size_t k = again[i];
                for (const auto& category : run.categories)
                    if (category->when() == When::cases) category->again(run, k);
                for (const auto& category : run.categories) {
                    if (category->when() != When::beside_cases || !category->wanted(run, k)) continue;
                    category->again(run, k);
                    for (auto& lane : lanes)
                        if (lane->category == category.get()) {
                            if (lane->pass.on_gpu) run_pass(lane->pass, k);
                            else lane->pool->add(k);  // (nothing when it was added before)
                        }
                }
            });
            g.phases["again"] = seconds_since(phase_started);
        }
    }
    for (const auto& category : run.categories) {
        if (category->when() != When::after_cases) continue;
        phase_started = Clock::now();
        category->run(run, {});
        g.phases[category->name()] = seconds_since(phase_started);
    }
    // The GPU's part is over: another grading may take it while the CPU's passes end here.
    alone.reset();
    phase_started = Clock::now();
    for (auto& lane : lanes) lane->pool->finish();  // (throws what a pass threw)
    if (run.gpu) g.phases["after_speed"] = seconds_since(phase_started);
    for (const auto& [phase, span] : phase_spans) g.phases[phase] = std::chrono::duration<double>(span.second - span.first).count();
    if (run.cpu_build) {
        std::string missing;
        double seconds = 0;
        run.cpu_build->wait(missing, seconds);
        g.phases["cpu_backend_build"] = seconds;
    }
    for (std::size_t k = 0; k < g.rungs.size(); ++k)
        for (const auto& category : run.categories) category->keep(run, k);
    for (const auto& category : run.categories) category->finish(run);
    // Every part of every rung graded here, in the categories' order (a reused rung keeps its own).
    for (RungResult& r : g.rungs) {
        if (r.reused || !run.rubric.assigned(r.id)) continue;
        r.parts.clear();
        for (const auto& category : run.categories) category->score(run.rubric, run.gpu, r);
    }
    run.ready = nullptr;  // (it holds this phase's own state)
}

// The rungs the course assigns, their total checked against the rubric's, the hints' cost, and
// every report written.
void reports(Grading& run)
{
    Grade& g = run.g;
    const Rubric& rubric = run.rubric;
    g.seconds = seconds_since(run.started);
    g.cpu = cpu_of_this_grading();
    // Only the rungs the course assigns are graded and reported.
    g.rungs.erase(std::remove_if(g.rungs.begin(), g.rungs.end(), [&](const RungResult& r) { return !rubric.assigned(r.id); }),
                  g.rungs.end());
    if (std::fabs(g.max() - rubric.max()) > 1e-6)
        throw std::logic_error("the grading's maximum (" + std::to_string(g.max()) + ") is not the rubric's (" +
                               std::to_string(rubric.max()) + "): a part is missing or has other points");
    g.hints = hints_verdict(run.intake.hints_record, g.rungs, [&](int level) { return rubric.hints.cost(level); });
    if (g.hints.total_off() > 0) std::cout << "  hints: " << g.hints.total_off() << " points off (the rubric's [hints])\n";
    write_reports(g, run.request.out_dir);
    std::cout << console_table(g);
    std::printf("lab-grade: %.2f / %.2f points in %.0f s; reports in %s (replay this run with --seed %s)\n", g.score(), g.max(),
                g.seconds, run.request.out_dir.c_str(), g.seed_text().c_str());
}

// The phases in order; the time of the first four goes into grade.json's phases under its name (the
// categories phase writes its own, finer ones; the reports are written last).
struct Phase {
    const char* name;
    void (*run)(Grading&);
    bool timed;
};
constexpr Phase kPhases[] = {{"intake", intake, true},         {"screen", screen, true},
                             {"build", build, true},           {"integrity", integrity, true},
                             {"categories", categories, false}, {"reports", reports, false}};

}  // namespace

int grade(const GradeRequest& request)
{
    Grading run;
    run.request = request;
    run.started = std::chrono::steady_clock::now();
    const lab::DeviceStatus& device = lab::device_status();
    if (!device.usable) {
        std::cerr << "lab-grade: " << device.reason << "\n  This grader was built for the GPU; without one, build the "
                  << "kit for the CPU backend (./lab grade does) and grade there.\n";
        return 2;
    }
    if (const std::string refusal = grading_tree_refusal(grading_build_dir()); !refusal.empty()) {
        std::cerr << "lab-grade: " << refusal << '\n';
        return 2;
    }
    run.gpu = !device.emulated;
    run.categories = grading_categories();
    for (const Phase& phase : kPhases) {
        const auto started = std::chrono::steady_clock::now();
        phase.run(run);
        if (phase.timed) run.g.phases[phase.name] = seconds_since(started);
    }
    return 0;
}

}  // namespace lab::grading
