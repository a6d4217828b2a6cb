// Kit tool (lab-case), on the trusted side of the line: what its modes share (case_runner.cpp: run,
// batch, catch, ctest, gpu; case_check.cpp: the student's loop). See case_runner.cpp for the modes.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "child_run.hpp"
#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/exit_status.hpp"
#include "lab/registry.hpp"
#include "lab/sanitizer_log.hpp"
#include "lab/suite_plan.hpp"

namespace case_runner {

using lab::exit_status::kSkipped;
using lab::exit_status::kStickyError;

struct Options {
    std::string mode, rung, exe, backend, test, sanitizer, junit, out, filter, expect, name, mistake, case_name, progress,
        stamp, sample;
    bool racecheck_tool = false;
    bool progress_lines = false;
    int timeout = 300;
};

// The command line of every mode but gpu (case_runner_args.cpp); a bad one exits 2 with the usage.
Options parse_options(int argc, char** argv);
// What was wrong with the command line, and the usage; exits 2.
[[noreturn]] void usage(const std::string& problem);

// --- verdicts ------------------------------------------------------------------------------------

// left_out: not run by this run's choice (a sample on the CPU backend), and said so.
enum class Status { passed, failed, skipped, left_out };

// Cases of one test program that end at a time limit (the CPU backend's per-launch limit, or this
// runner's own): the kit's one rule for when to stop (lab/exit_status.hpp).
using lab::exit_status::kHangsBeforeStopping;
using lab::exit_status::kLaunchTimeoutName;

inline std::string not_run_after_hangs(const std::string& rung, std::size_t count, const std::string& first)
{
    return "not run: " + std::to_string(count) + " earlier cases of rung " + rung +
           " were stopped at the time limit (the first: " + first +
           "), so this one would most likely be too. Fix the loop that never ends (the first case's report names "
           "the thread and the line), rebuild, and run the tests again.";
}

inline bool ended_at_a_time_limit(const std::string& message, const std::string& reason)
{
    return message.find(kLaunchTimeoutName) != std::string::npos || reason.find("did not finish within") != std::string::npos;
}

struct Verdict {
    Status status = Status::failed;
    std::string reason;   // why it failed or was skipped
    std::string message;  // what the test itself said (failure messages)
};

struct Runner {
    Options options;
    const lab::RungInfo& rung;

    // Why the kit itself skips `t` here, checked by this process; nothing when it would not. A
    // kernel case follows lab::kit_skip_reason, as the suites and the grader do.
    std::optional<std::string> kit_skip(const lab::PlannedTest& t, bool ask_device) const
    {
        const auto this_case = [](const std::optional<std::string>& reason) -> std::optional<std::string> {
            if (!reason) return std::nullopt;
            return "this case " + *reason + ".";
        };
        if (options.backend == "cpu") {
            if (!t.gpu_only) return std::nullopt;
            if (t.kind == lab::TestKind::speed)
                return std::string("speed is measured on a GPU only: the CPU backend checks correctness, not GPU speed.");
            if (t.kind == lab::TestKind::racecheck) return std::string("racecheck runs on a GPU only.");
            return this_case(lab::kit_skip_reason(t.gpu_only, t.device_bytes, true, {}));
        }
        if (!ask_device || t.kind == lab::TestKind::launcher) return std::nullopt;
        const lab::DeviceStatus& device = lab::device_status();
        if (!device.usable) return device.reason + " Kernel tests need an NVIDIA GPU; skipped.";
        return this_case(lab::kit_skip_reason(t.gpu_only, t.device_bytes, false, lab::free_device_bytes));
    }

    std::vector<std::string> command(const std::vector<const lab::PlannedTest*>& tests, bool under_racecheck,
                                     const std::string& log) const
    {
        std::vector<std::string> argv;
        if (under_racecheck)
            argv = {options.sanitizer, "--tool", "racecheck", "--racecheck-report", "hazard", "--log-file", log};
        std::string filter;
        for (const auto* t : tests) filter += (filter.empty() ? "" : ":") + t->runs;
        argv.insert(argv.end(), {options.exe, "--gtest_filter=" + filter, "--gtest_color=no"});
        return argv;
    }

    // The verdict on `t` from one run of its program (which may have run other tests too).
    Verdict judge(const lab::PlannedTest& t, const ChildRun& run, bool under_racecheck) const
    {
        std::vector<const Result*> mine;
        for (const auto& r : run.results)
            if (r.test == t.runs) mine.push_back(&r);
        Verdict v;
        if (mine.size() > 1) {
            v.reason = "the test program reported " + t.runs + " more than once: something besides the kit's harness "
                       "wrote to its results.";
            return v;
        }
        if (mine.empty()) {
            if (run.not_started) v.reason = "the test program " + options.exe + " could not be started: was it built?";
            else if (run.timed_out)
                v.reason = "the test did not finish within " + std::to_string(options.timeout) +
                           " s and was stopped: a loop that never ends, or threads waiting for each other?";
            else if (run.clean_exit())
                v.reason = "the test program exited (status 0) without reporting this test: something ended it "
                           "early, such as a call to exit() in a static initializer or in the kernel's file. Only a "
                           "test that runs to its end counts.";
            else
                v.reason = "the test program " + run.how_it_ended() + " before reporting this test" +
                           (run.signal ? ": it crashed." : ".");
            return v;
        }
        const Result& r = *mine.front();
        v.message = r.message;
        if (r.status == "skipped") {
            if (auto reason = kit_skip(t, true)) {
                v.status = Status::skipped;
                v.reason = *reason;
            } else {
                v.reason = "the test program reported this test as skipped, but the kit has no reason to skip it here. "
                           "Only the kit skips a case (no GPU, too little memory, a GPU-only case on the CPU "
                           "backend); a skip from anywhere else counts as a failure.";
            }
            return v;
        }
        if (r.status == "failed") {
            v.reason = "the test failed.";
            if (run.clean_exit())
                v.reason += " (And the program then exited with status 0, which contradicts its own result: "
                            "something, such as an atexit handler, changed its exit status.)";
            return v;
        }
        if (r.status != "passed") {
            v.reason = "the test program reported an unknown result '" + r.status + "'.";
            return v;
        }
        if (!run.ending_agrees()) {
            v.reason = "the test passed, but then the program " + run.how_it_ended() +
                       ", which contradicts what it reported: a program whose tests all pass exits with status 0, "
                       "and one with a failed test with status 1.";
            return v;
        }
        if (under_racecheck) return judge_racecheck(run);
        v.status = Status::passed;
        return v;
    }

    static Verdict judge_racecheck(const ChildRun& run)
    {
        Verdict v;
        const auto summary = lab::sanitizer_summary(run.sanitizer_log);
        if (!summary) {
            v.reason = "compute-sanitizer racecheck gave no summary:\n" + run.sanitizer_log;
            return v;
        }
        if (summary->count != 0) {
            v.reason = "racecheck found " + std::to_string(summary->count) + " shared-memory hazards (" +
                       std::to_string(summary->errors) + " errors, " + std::to_string(summary->warnings) +
                       " warnings): threads read and write the same shared slot with nothing ordering "
                       "them. Inside a warp, a GPU does not promise lockstep (independent thread scheduling, since "
                       "Volta): separate the read and the write with __syncwarp() (read into a register, "
                       "__syncwarp(), write, __syncwarp()) or use __shfl_down_sync; between warps, use "
                       "__syncthreads(). `volatile` does not order anything.\n" + run.sanitizer_log;
            return v;
        }
        v.status = Status::passed;
        return v;
    }

    // Runs `tests` (all racecheck or none) and judges each; a program that dies or hits a sticky
    // CUDA error mid-way is started again on the tests it did not reach. After kHangsBeforeStopping
    // cases ended at a time limit, the rest fail at once. `done` hears how many have a verdict.
    std::vector<Verdict> run_all(const std::vector<const lab::PlannedTest*>& tests, std::string* output,
                                 const std::function<void(std::size_t)>& done = {}) const
    {
        std::vector<Verdict> verdicts(tests.size());
        std::vector<std::size_t> pending;
        for (std::size_t i = 0; i < tests.size(); ++i) {
            // Racecheck's tool needs a GPU to start at all: ask the device before running it.
            const bool ask = tests[i]->kind == lab::TestKind::racecheck || options.racecheck_tool;
            if (auto reason = kit_skip(*tests[i], ask)) verdicts[i] = {Status::skipped, *reason, ""};
            else pending.push_back(i);
        }
        std::size_t decided = tests.size() - pending.size();
        if (done) done(decided);
        std::vector<std::string> hangs;  // the cases that ended at a time limit, in order
        const bool racecheck = !tests.empty() && (tests.front()->kind == lab::TestKind::racecheck || options.racecheck_tool);
        while (!pending.empty()) {
            if (hangs.size() >= kHangsBeforeStopping) {
                for (std::size_t i : pending)
                    verdicts[i] = {Status::failed, not_run_after_hangs(rung.id, hangs.size(), hangs.front()), ""};
                break;
            }
            std::vector<const lab::PlannedTest*> batch;
            for (std::size_t i : pending) batch.push_back(tests[i]);
            const std::string log = racecheck ? temporary_directory() + "/racecheck.log" : "";
            std::size_t reported = 0;
            const ResultWatch watch = [&](const Result& r) {
                if (done) done(decided + ++reported);
                if (r.status == "failed" && ended_at_a_time_limit(r.message, "")) hangs.push_back(r.test);
                return hangs.size() < kHangsBeforeStopping;
            };
            const ChildRun run = run_child(command(batch, racecheck, log), options.timeout, log, watch);
            if (!log.empty()) rmdir(log.substr(0, log.rfind('/')).c_str());
            if (output) *output += run.output;
            // A test the program never reached gets a fresh process, as long as this one got
            // somewhere; the one it was running when it stopped is judged as it stands (unless this
            // runner stopped it: then it never ran to its end, and is not run).
            std::vector<std::size_t> again;
            bool progress = false;
            for (std::size_t i : pending) {
                bool was_reported = false;
                for (const auto& r : run.results) was_reported |= r.test == tests[i]->runs;
                const bool was_running = !run.started.empty() && run.started.back() == tests[i]->runs;
                progress |= was_reported || was_running;
                if (!was_reported && (!was_running || run.stopped)) {
                    again.push_back(i);
                    continue;
                }
                verdicts[i] = judge(*tests[i], run, racecheck);
                if (!was_reported && ended_at_a_time_limit("", verdicts[i].reason)) hangs.push_back(tests[i]->name);
            }
            if (!progress) {
                for (std::size_t i : again) verdicts[i] = judge(*tests[i], run, racecheck);
                again.clear();
            }
            decided += pending.size() - again.size();
            if (done) done(decided);
            pending = again;
        }
        return verdicts;
    }
};

std::string indented(const std::string& text);
const lab::PlannedTest* find_test(const std::vector<lab::PlannedTest>& plan, const std::string& name);
// gtest's filter syntax: patterns with * and ? separated by ':', then optionally '-' and patterns to leave out.
bool matches_filter(const std::string& filter, const std::string& name);
// What ctest's output says for a test, as lab-case run prints it (and lab-summary reads it).
std::string verdict_text(const Verdict& v);

// The student's loop, ./lab check NN (case_check.cpp).
int mode_check(const Runner& runner, const std::vector<lab::PlannedTest>& plan);

}  // namespace case_runner
