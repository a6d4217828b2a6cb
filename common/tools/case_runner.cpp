// Kit tool, on the trusted side of the line: runs a rung's test program, which holds the student's
// kernel, in a child process, and decides each test's verdict itself. A verdict never comes from
// what the program prints, nor from its exit status alone:
//   - the list of tests comes from the kit's plan (lab/suite_plan.hpp), not from the program;
//   - each test's result comes from the results file the harness appends to as the test ends
//     (tests/support/main.cpp), and must agree with how the program ended: a test that reported
//     nothing (the program exited early, crashed or hung) fails, and so does one whose program's
//     exit status contradicts its result (a failure followed by exit status 0, say);
//   - only the kit skips: a test is skipped for a reason this runner checks for itself (the CPU
//     backend and a GPU-only test, no usable GPU, too little device memory); a test the program
//     reports as skipped for any other reason fails;
//   - what the program prints is passed on indented, so no line it prints can pass for one of this
//     runner's own lines, which start at the margin with "lab-case:".
//
//   lab-case run    --rung ID --exe PROGRAM --backend cpu|cuda --test NAME [--sanitizer PATH] [--timeout S]
//       one test, for ctest: exit 0 passed, 1 failed, 77 skipped by the kit
//   lab-case batch  --rung ID --exe PROGRAM --backend cpu|cuda [--sanitizer PATH] [--timeout S] [--junit FILE]
//                   [--sample SEED] [--filter GTEST_FILTER] [--progress-lines]
//       every test of the rung in one process (one CUDA context), a fresh process after a crash or
//       a sticky CUDA error; after three cases stopped at a time limit the rest fail at once. Prints
//       a line per failure and the counts, writes a JUnit file. --sample: of the larger kernel cases,
//       one per shape, picked by SEED (lab::cpu_sample; the others are left out, and said so);
//       --filter: only the tests it selects (gtest's syntax), the others not even listed.
//       --progress-lines: a line "lab-case: progress DONE/TOTAL" as cases end (for ./lab run)
//   lab-case catch  --rung ID --exe PROGRAM --backend cpu|cuda --filter GTEST_FILTER --expect REGEX
//                   --name NAME --mistake TEXT [--racecheck SANITIZER] [--timeout S]
//       a planted mistake (tests/mutants.json): exit 0 when its suite fails it and says EXPECT
//   lab-case ctest  --rung ID --exe PROGRAM --backend cpu|cuda --out FILE [--sanitizer PATH] [--timeout S]
//       writes the ctest file that declares the rung's tests, each run through `lab-case run`
//   lab-case check  --rung ID --exe PROGRAM --backend cpu|cuda [--case NAME] [--progress FILE --stamp TEXT]
//       the student's loop (./lab check NN): the small cases first, in one process; at the first
//       failures, the first failing case in full and nothing larger; once they pass, the larger ones,
//       then (on a GPU) the speed case. With --case, that case alone, with all it printed. --progress
//       writes the verdict as JSON for ./lab status, with TEXT (the exercise file's fingerprint)
//   lab-case gpu    PROGRAM [ARGS...]
//       a kit test program that holds no student code and needs a GPU (the construct corpus under
//       CUDA): skipped by this runner (exit 77) when no GPU is usable, else PROGRAM runs as given
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/exit_status.hpp"
#include "lab/json_text.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/sanitizer_log.hpp"
#include "lab/suite_plan.hpp"
#include "lab/text.hpp"

namespace {

using lab::exit_status::kSkipped;
using lab::exit_status::kStickyError;
constexpr std::size_t kOutputHead = 768 * 1024, kOutputTail = 256 * 1024;

// --- options -----------------------------------------------------------------------------------

struct Options {
    std::string mode, rung, exe, backend, test, sanitizer, junit, out, filter, expect, name, mistake, case_name, progress,
        stamp, sample;
    bool racecheck_tool = false;
    bool progress_lines = false;
    int timeout = 300;
};

[[noreturn]] void usage(const std::string& problem)
{
    std::cerr << "lab-case: " << problem << "\n"
              << "usage: lab-case run|batch|catch|ctest --rung ID --exe PROGRAM --backend cpu|cuda [options]\n"
                 "  run:   --test NAME [--sanitizer PATH] [--timeout S]\n"
                 "  batch: [--sanitizer PATH] [--timeout S] [--junit FILE] [--sample SEED] [--filter F] [--progress-lines]\n"
                 "  catch: --filter GTEST_FILTER --expect REGEX --name NAME --mistake TEXT [--racecheck SANITIZER]\n"
                 "  ctest: --out FILE [--sanitizer PATH] [--timeout S]\n"
                 "  check: [--case NAME] [--progress FILE --stamp TEXT] [--timeout S]\n";
    std::exit(2);
}

Options parse(int argc, char** argv)
{
    if (argc < 2) usage("no mode given");
    Options o;
    o.mode = argv[1];
    const std::map<std::string, std::string*> text{
        {"--rung", &o.rung},     {"--exe", &o.exe},         {"--backend", &o.backend}, {"--test", &o.test},
        {"--sanitizer", &o.sanitizer}, {"--junit", &o.junit}, {"--out", &o.out},       {"--filter", &o.filter},
        {"--expect", &o.expect}, {"--name", &o.name},       {"--mistake", &o.mistake}, {"--case", &o.case_name},
        {"--progress", &o.progress}, {"--stamp", &o.stamp}, {"--sample", &o.sample}};
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--progress-lines") {
            o.progress_lines = true;
            continue;
        }
        if (i + 1 >= argc) usage("option " + arg + " needs a value");
        if (arg == "--timeout") o.timeout = std::atoi(argv[++i]);
        else if (arg == "--racecheck") o.sanitizer = argv[++i], o.racecheck_tool = true;
        else if (const auto it = text.find(arg); it != text.end()) *it->second = argv[++i];
        else usage("unknown option " + arg);
    }
    if (o.rung.empty() || o.exe.empty()) usage("--rung and --exe are required");
    if (o.backend != "cpu" && o.backend != "cuda") usage("--backend must be cpu or cuda");
    if (o.timeout < 1) o.timeout = 300;
    return o;
}

// --- running the program under test --------------------------------------------------------------

struct Result {
    std::string test, status, message;
    bool sticky = false;
};

struct ChildRun {
    int exit_code = -1;  // when it exited
    int signal = 0;      // when a signal ended it
    bool timed_out = false;
    bool stopped = false;      // this runner stopped it (a watch said so): the test it was running never ran to its end
    bool not_started = false;  // exec failed: the program does not exist
    std::string output;
    std::vector<std::string> started;
    std::vector<Result> results;  // in the order the tests ended
    std::string sanitizer_log;

    bool clean_exit() const { return signal == 0 && !timed_out && !stopped && exit_code == 0; }
    // It stopped while running a test that never reported: that test alone is to blame.
    bool ended_in_a_test() const
    {
        if (started.empty()) return false;
        for (const auto& r : results)
            if (r.test == started.back()) return false;
        return true;
    }
    // How the program ended agrees with what it reported: status 0 when every test it ran passed,
    // gtest's 1 when one failed.
    bool ending_agrees() const
    {
        if (sticky_restart() || ended_in_a_test()) return true;
        if (signal || timed_out) return false;
        bool any_failed = false;
        for (const auto& r : results) any_failed |= r.status == "failed";
        return exit_code == (any_failed ? 1 : 0);
    }
    // It ended as the harness ends a program after a sticky CUDA error: right after reporting the
    // failed test that caused it.
    bool sticky_restart() const
    {
        return signal == 0 && !timed_out && exit_code == kStickyError && !results.empty() && results.back().sticky &&
               results.back().status == "failed";
    }
    std::string how_it_ended() const
    {
        if (not_started) return "could not be started";
        if (timed_out) return "was stopped after running too long";
        if (signal) return std::string("was killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
        return "exited with status " + std::to_string(exit_code);
    }
};

pid_t g_child = 0;

void stop_child(int signal_number)
{
    if (g_child > 0) kill(-g_child, SIGKILL);
    std::signal(signal_number, SIG_DFL);
    raise(signal_number);
}

std::string temporary_directory()
{
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/lab-case-XXXXXX";
    if (!mkdtemp(pattern.data())) {
        std::perror("lab-case: mkdtemp");
        std::exit(2);
    }
    return pattern;
}

std::size_t file_size(const std::string& path)
{
    struct stat info {};
    return stat(path.c_str(), &info) == 0 ? static_cast<std::size_t>(info.st_size) : 0;
}

// Sees each test's result the moment the program reports it; false stops the program there.
using ResultWatch = std::function<bool(const Result&)>;

// The results lines of `text` that are complete, parsed; `text` keeps what follows the last newline.
std::vector<nlohmann::json> complete_lines(std::string& text)
{
    std::vector<nlohmann::json> lines;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
        auto j = nlohmann::json::parse(text.substr(start, end - start), nullptr, false);
        if (!j.is_discarded() && j.is_object()) lines.push_back(std::move(j));  // a line cut short by a crash is not
    }
    text.erase(0, start);
    return lines;
}

Result result_of(const nlohmann::json& j)
{
    return {j.value("test", ""), j.value("result", ""), j.value("message", ""), j.value("sticky", false)};
}

// Runs `argv` with the results file set, capturing what it prints (bounded). A test that makes no
// progress (no result appended) for `timeout` seconds is stopped, with the program; so is the
// program when `watch` says so.
ChildRun run_child(const std::vector<std::string>& argv, int timeout, const std::string& sanitizer_log = {},
                   const ResultWatch& watch = {})
{
    const std::string dir = temporary_directory();
    const std::string results = dir + "/results.jsonl";
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        std::perror("lab-case: pipe");
        std::exit(2);
    }
    lab::process::Options options;
    options.output_fd = pipe_fds[1];
    options.group = lab::process::Options::Group::process_group;
    options.die_with_parent = true;
    options.environment = {{"LAB_RESULTS", results}};
    const pid_t pid = lab::process::start(argv, options);
    if (pid < 0) {
        std::perror("lab-case: fork");
        std::exit(2);
    }
    g_child = pid;
    close(pipe_fds[1]);
    std::signal(SIGTERM, stop_child);
    std::signal(SIGINT, stop_child);

    ChildRun run;
    std::string head, tail;
    std::size_t dropped = 0;
    using clock = std::chrono::steady_clock;
    auto deadline = clock::now() + std::chrono::seconds(timeout);
    std::size_t progress = 0, watched = 0;  // bytes of the results file seen, and handed to the watch
    std::string unread;
    bool open = true, ended = false;
    int status = 0;
    while (!ended || open) {
        if (open) {
            pollfd p{pipe_fds[0], POLLIN, 0};
            if (poll(&p, 1, 100) > 0) {
                char buffer[65536];
                const ssize_t got = read(pipe_fds[0], buffer, sizeof buffer);
                if (got <= 0) open = false;
                const std::size_t room = kOutputHead - std::min(kOutputHead, head.size());
                const std::size_t to_head = std::min(room, static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
                head.append(buffer, to_head);
                if (got > 0) tail.append(buffer + to_head, static_cast<std::size_t>(got) - to_head);
                if (tail.size() > kOutputTail) {
                    dropped += tail.size() - kOutputTail;
                    tail.erase(0, tail.size() - kOutputTail);
                }
            }
        } else {
            usleep(20000);
        }
        // Still running with its output closed, or its output still held open by something it
        // started: either way the program itself is waited for.
        if (!ended && waitpid(pid, &status, WNOHANG) == pid) ended = true;
        if (ended && open) {
            pollfd p{pipe_fds[0], POLLIN, 0};
            if (poll(&p, 1, 0) <= 0) open = false;  // whatever it wrote has been read
        }
        if (const std::size_t now = file_size(results); now != progress) {
            progress = now;
            deadline = clock::now() + std::chrono::seconds(timeout);
            if (watch && !ended) {
                std::ifstream file(results, std::ios::binary);
                file.seekg(static_cast<std::streamoff>(watched));
                std::string added(now > watched ? now - watched : 0, '\0');
                file.read(added.data(), static_cast<std::streamsize>(added.size()));
                added.resize(static_cast<std::size_t>(file.gcount()));
                watched += added.size();
                unread += added;
                bool go_on = true;
                for (const auto& j : complete_lines(unread))
                    if (j.value("event", "") == "end") go_on = watch(result_of(j)) && go_on;
                if (!go_on) {
                    run.stopped = true;
                    kill(-pid, SIGKILL);
                    waitpid(pid, &status, 0);
                    ended = true;
                    open = false;
                }
            }
        }
        if (!ended && clock::now() > deadline) {
            run.timed_out = true;
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            ended = true;
            open = false;
        }
    }
    close(pipe_fds[0]);
    kill(-pid, SIGKILL);  // anything it left behind
    g_child = 0;
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
    if (run.timed_out || run.stopped) run.signal = 0, run.exit_code = -1;
    run.not_started = run.exit_code == 127 && head.rfind("cannot start ", 0) == 0;
    run.output = head + (dropped ? "\n[... " + std::to_string(dropped) + " bytes of output left out ...]\n" : "") + tail;

    std::string all = lab::read_file(results);
    for (const auto& j : complete_lines(all)) {
        const std::string event = j.value("event", "");
        if (event == "start") run.started.push_back(j.value("test", ""));
        if (event == "end") run.results.push_back(result_of(j));
    }
    if (!sanitizer_log.empty()) run.sanitizer_log = lab::read_file(sanitizer_log);
    std::remove(results.c_str());
    if (!sanitizer_log.empty()) std::remove(sanitizer_log.c_str());
    rmdir(dir.c_str());
    return run;
}

// --- verdicts ------------------------------------------------------------------------------------

// left_out: not run by this run's choice (a sample on the CPU backend), and said so.
enum class Status { passed, failed, skipped, left_out };

// Cases of one test program that end at a time limit (the CPU backend's per-launch limit, or this
// runner's own): once this many have, the rung's remaining cases fail at once instead of each
// running into the same wall.
constexpr int kHangsBeforeStopping = 3;

std::string not_run_after_hangs(const std::string& rung, std::size_t count, const std::string& first)
{
    return "not run: " + std::to_string(count) + " earlier cases of rung " + rung +
           " were stopped at the time limit (the first: " + first +
           "), so this one would most likely be too. Fix the loop that never ends (the first case's report names "
           "the thread and the line), rebuild, and run the tests again.";
}

bool ended_at_a_time_limit(const std::string& message, const std::string& reason)
{
    return message.find("cudaErrorLaunchTimeout") != std::string::npos || reason.find("did not finish within") != std::string::npos;
}

struct Verdict {
    Status status = Status::failed;
    std::string reason;   // why it failed or was skipped
    std::string message;  // what the test itself said (failure messages)
};

struct Runner {
    Options options;
    const lab::RungInfo& rung;

    // Why the kit itself skips `t` here, checked by this process; nothing when it would not.
    std::optional<std::string> kit_skip(const lab::PlannedTest& t, bool ask_device) const
    {
        if (options.backend == "cpu") {
            if (!t.gpu_only) return std::nullopt;
            if (t.kind == lab::TestKind::speed)
                return std::string("speed is measured on a GPU only: the CPU backend checks correctness, not GPU speed.");
            if (t.kind == lab::TestKind::racecheck) return std::string("racecheck runs on a GPU only.");
            return std::string("this case runs on a GPU only: its input is too large for the CPU backend.");
        }
        if (!ask_device || t.kind == lab::TestKind::launcher) return std::nullopt;
        const lab::DeviceStatus& device = lab::device_status();
        if (!device.usable) return device.reason + " Kernel tests need an NVIDIA GPU; skipped.";
        if (t.device_bytes) {
            std::size_t free = 0, total = 0;
            if (cudaMemGetInfo(&free, &total) == cudaSuccess && free < t.device_bytes) {
                char text[160];
                std::snprintf(text, sizeof text, "this case needs %.1f GiB of device memory; this GPU has %.1f GiB free.",
                              static_cast<double>(t.device_bytes) / (1u << 30), static_cast<double>(free) / (1u << 30));
                return std::string(text);
            }
        }
        return std::nullopt;
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

std::string indented(const std::string& text)
{
    std::string out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
    return out;
}

const lab::PlannedTest* find_test(const std::vector<lab::PlannedTest>& plan, const std::string& name)
{
    for (const auto& t : plan)
        if (t.name == name) return &t;
    return nullptr;
}

// gtest's filter syntax: patterns with * and ? separated by ':', then optionally '-' and patterns to leave out.
bool glob(const char* pattern, const char* text)
{
    if (*pattern == '\0') return *text == '\0';
    if (*pattern == '*') return glob(pattern + 1, text) || (*text && glob(pattern, text + 1));
    return *text && (*pattern == '?' || *pattern == *text) && glob(pattern + 1, text + 1);
}

bool any_glob(const std::string& patterns, const std::string& name)
{
    std::istringstream parts(patterns);
    for (std::string p; std::getline(parts, p, ':');)
        if (!p.empty() && glob(p.c_str(), name.c_str())) return true;
    return false;
}

bool matches_filter(const std::string& filter, const std::string& name)
{
    const auto minus = filter.find('-');
    const std::string positive = minus == std::string::npos ? filter : filter.substr(0, minus);
    const std::string negative = minus == std::string::npos ? "" : filter.substr(minus + 1);
    return any_glob(positive.empty() ? "*" : positive, name) && !any_glob(negative, name);
}

// What ctest's output says for a test, as lab-case run prints it (and lab-summary reads it).
std::string verdict_text(const Verdict& v)
{
    switch (v.status) {
    case Status::passed: return "lab-case: passed\n";
    case Status::skipped: return "lab-case: skipped: " + v.reason + "\n";
    case Status::left_out: return "lab-case: left out: " + v.reason + "\n";
    case Status::failed: break;
    }
    return indented(v.message) + "lab-case: FAILED: " + v.reason + "\n";
}

// For ctest's process per case: the cases of one test program that ended at a time limit, kept in
// PROGRAM.hung next to the program while it stays the same build (kHangsBeforeStopping, as run_all
// counts them in one process). Rebuilding the program starts the count afresh.
class HangRecord {
public:
    explicit HangRecord(const std::string& exe) : path_(exe + ".hung")
    {
        struct stat info {};
        if (stat(exe.c_str(), &info) == 0)
            build_ = std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
                     std::to_string(info.st_mtim.tv_nsec);
    }

    // The cases recorded for this build of the program.
    std::vector<std::string> cases() const
    {
        std::vector<std::string> found;
        std::ifstream in(path_);
        std::string line;
        while (std::getline(in, line))
            if (line.rfind(build_ + " ", 0) == 0) found.push_back(line.substr(build_.size() + 1));
        return found;
    }

    void add(const std::string& test) const
    {
        // One short line per write, appended: cases that ctest runs side by side do not mix their lines.
        const std::string line = build_ + " " + test + "\n";
        const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd < 0) return;
        [[maybe_unused]] const auto written = write(fd, line.data(), line.size());  // a lost line only costs time
        close(fd);
    }

private:
    std::string path_;
    std::string build_;
};

int mode_run(const Runner& runner, const std::vector<lab::PlannedTest>& plan)
{
    const lab::PlannedTest* t = find_test(plan, runner.options.test);
    if (!t) {
        std::cout << "lab-case: FAILED: the kit plans no test named " << runner.options.test << " for rung "
                  << runner.rung.id << "; rebuild to refresh the list of tests.\n";
        return 1;
    }
    const HangRecord hangs(runner.options.exe);
    const bool ask = t->kind == lab::TestKind::racecheck || runner.options.racecheck_tool;
    // A case the kit skips here is skipped whatever ran before it (as lab-case batch decides too).
    if (const auto earlier = hangs.cases(); earlier.size() >= kHangsBeforeStopping && !runner.kit_skip(*t, ask)) {
        std::cout << "lab-case: FAILED: " << not_run_after_hangs(runner.rung.id, earlier.size(), earlier.front()) << "\n";
        return 1;
    }
    std::string output;
    const Verdict v = runner.run_all({t}, &output).front();
    if (v.status == Status::failed && ended_at_a_time_limit(v.message, v.reason)) hangs.add(t->name);
    if (v.status == Status::skipped) {
        std::cout << verdict_text(v) << indented(output);  // the skip first: a report may keep only the start
        return kSkipped;
    }
    std::cout << indented(output) << (v.status == Status::failed ? "lab-case: FAILED: " + v.reason + "\n"
                                                                 : verdict_text(v));
    return v.status == Status::passed ? 0 : 1;
}

int mode_batch(const Runner& runner, const std::vector<lab::PlannedTest>& plan)
{
    const Options& o = runner.options;
    std::vector<bool> runs(plan.size(), true);
    std::uint64_t seed = 0;
    if (!o.sample.empty()) {
        try {
            std::size_t used = 0;
            seed = std::stoull(o.sample, &used, 0);
            if (used != o.sample.size()) throw std::invalid_argument(o.sample);
        } catch (const std::exception&) {
            usage("--sample needs a number (a seed such as 0x1f2e3d), not " + o.sample);
        }
        runs = lab::cpu_sample(plan, seed);
    }
    std::vector<const lab::PlannedTest*> plain, racecheck, left_out;
    for (std::size_t i = 0; i < plan.size(); ++i)
        if (o.filter.empty() || matches_filter(o.filter, plan[i].name))
            (!runs[i] ? left_out : plan[i].kind == lab::TestKind::racecheck ? racecheck : plain).push_back(&plan[i]);
    const std::size_t total = plain.size() + racecheck.size();
    std::size_t reached = 0;
    const auto progress = [&](std::size_t done) {
        if (!o.progress_lines || done == reached) return;
        reached = done;
        std::cout << "lab-case: progress " << done << "/" << total << std::endl;
    };
    std::vector<const lab::PlannedTest*> order = plain;
    std::vector<Verdict> verdicts = runner.run_all(plain, nullptr, progress);
    for (const auto* t : racecheck) {
        order.push_back(t);
        const std::size_t before = order.size() - 1;
        verdicts.push_back(runner.run_all({t}, nullptr, [&](std::size_t done) { progress(before + done); }).front());
    }
    char seed_text[32];
    std::snprintf(seed_text, sizeof seed_text, "0x%llx", static_cast<unsigned long long>(seed));
    for (const auto* t : left_out) {
        order.push_back(t);
        verdicts.push_back({Status::left_out,
                            std::string("a sample: of the larger cases, one of each shape ran (seed ") + seed_text + ").",
                            ""});
    }
    int passed = 0, failed = 0, skipped = 0, omitted = 0;
    std::ostringstream xml;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Verdict& v = verdicts[i];
        const char* status = v.status == Status::passed ? "run" : v.status == Status::failed ? "fail" : "notrun";
        (v.status == Status::passed ? passed : v.status == Status::skipped ? skipped : v.status == Status::left_out ? omitted : failed)++;
        if (v.status == Status::failed) std::cout << "FAILED " << order[i]->name << ": " << v.reason << "\n";
        xml << "\t<testcase name=\"" << lab::xml_escape(order[i]->name) << "\" status=\"" << status << "\">\n";
        if (v.status == Status::skipped) xml << "\t\t<skipped message=\"SKIP_RETURN_CODE=77\"/>\n";
        if (v.status == Status::left_out) xml << "\t\t<skipped message=\"LEFT_OUT\"/>\n";
        xml << "\t\t<system-out>" << lab::xml_escape(verdict_text(v)) << "</system-out>\n\t</testcase>\n";
    }
    std::cout << "rung " << runner.rung.id << ": " << passed << " passed, " << failed << " failed, " << skipped
              << " skipped (by the kit)";
    if (omitted) std::cout << ", " << omitted << " left out (sample " << seed_text << ")";
    std::cout << "\n";
    if (!o.junit.empty()) {
        std::ofstream file(o.junit);
        file << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"" << lab::xml_escape(runner.rung.id)
             << "\" tests=\"" << order.size() << "\" failures=\"" << failed << "\" skipped=\"" << skipped + omitted << "\">\n"
             << xml.str() << "</testsuite>\n";
        if (!file) {
            std::cerr << "lab-case: cannot write " << o.junit << "\n";
            return 2;
        }
    }
    return failed ? 1 : 0;
}

int mode_catch(const Runner& runner, const std::vector<lab::PlannedTest>& plan)
{
    const Options& o = runner.options;
    std::vector<const lab::PlannedTest*> chosen;
    for (const auto& t : plan)
        if (t.kind != lab::TestKind::racecheck && matches_filter(o.filter, t.runs)) chosen.push_back(&t);
    if (chosen.empty()) {
        std::cout << "lab-case: FAILED: the filter " << o.filter << " selects none of rung " << runner.rung.id
                  << "'s tests.\n";
        return 1;
    }
    const std::vector<Verdict> verdicts = runner.run_all(chosen, nullptr);
    const std::regex expect(o.expect);
    std::string first_reason, said;
    int failed = 0, skipped = 0;
    for (const Verdict& v : verdicts) {
        if (v.status == Status::skipped) ++skipped;
        if (v.status != Status::failed) continue;
        if (failed++ == 0) first_reason = v.message + v.reason;
        said += v.message + v.reason + "\n";
    }
    if (failed == 0 && skipped == static_cast<int>(verdicts.size())) {
        std::cout << "lab-case: skipped: every case that would catch " << o.name << " was skipped here: "
                  << verdicts.front().reason << "\n";
        return kSkipped;
    }
    if (failed == 0) {
        std::cout << "lab-case: FAILED: the suite did not catch the planted mistake " << o.name << ": " << o.mistake
                  << ". Every selected case (" << o.filter << ") passed, so the suite cannot tell this mistake from a "
                  << "right answer.\n";
        return 1;
    }
    if (!std::regex_search(said, expect)) {
        std::cout << "lab-case: FAILED: the suite failed the planted mistake " << o.name << " (" << o.mistake
                  << "), but its messages never say '" << o.expect << "', which a student would need to understand it."
                  << "\n" << indented(said);
        return 1;
    }
    std::cout << "caught " << o.name << " (" << failed << " of " << verdicts.size() << " cases failed): " << o.mistake
              << "\n" << indented(first_reason);
    return 0;
}

// --- the student's loop (./lab check NN) ----------------------------------------------------------

std::string seconds_since(std::chrono::steady_clock::time_point start)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return text;
}

std::string size_words(std::size_t elements)
{
    int k = 0;
    while ((std::size_t{1} << (k + 1)) <= elements) ++k;
    return (std::size_t{1} << k) == elements ? "2^" + std::to_string(k) : "about 2^" + std::to_string(k);
}

struct CheckOutcome {
    std::string verdict = "correct";  // correct, todos (not finished), failing, fast, slow (GPU)
    std::string first_failing;
    int passed = 0, failed = 0, skipped = 0;
};

void write_progress(const Options& o, const lab::RungInfo& rung, const CheckOutcome& outcome)
{
    if (o.progress.empty()) return;
    const nlohmann::json j{{"rung", rung.id},          {"stamp", o.stamp},
                           {"verdict", outcome.verdict}, {"first_failing", outcome.first_failing},
                           {"passed", outcome.passed},  {"failed", outcome.failed},
                           {"skipped", outcome.skipped}, {"backend", o.backend}};
    std::ofstream(o.progress) << lab::json_text(j, 1) << "\n";
}

// Runs one stage and prints what a student needs of it: nothing but a count when all pass; else the
// first failure in full, a count per failing group, and what was not run because of it.
bool run_stage(const Runner& runner, const std::vector<const lab::PlannedTest*>& tests, const std::string& later,
               CheckOutcome& outcome)
{
    const auto start = std::chrono::steady_clock::now();
    const std::vector<Verdict> verdicts = runner.run_all(tests, nullptr);
    std::map<std::string, std::pair<int, int>> groups;  // group -> failed, of
    std::vector<std::string> group_order, skip_reasons;
    const lab::PlannedTest* first = nullptr;
    const Verdict* first_verdict = nullptr;
    int failed = 0, passed = 0;
    for (std::size_t i = 0; i < tests.size(); ++i) {
        const std::string group = tests[i]->group.empty() ? "launcher" : tests[i]->group;
        if (!groups.count(group)) group_order.push_back(group);
        auto& counts = groups[group];
        ++counts.second;
        switch (verdicts[i].status) {
        case Status::passed: ++outcome.passed, ++passed; break;
        case Status::skipped:
            ++outcome.skipped;
            if (std::find(skip_reasons.begin(), skip_reasons.end(), verdicts[i].reason) == skip_reasons.end())
                skip_reasons.push_back(verdicts[i].reason);
            break;
        case Status::failed:
            ++outcome.failed, ++failed, ++counts.first;
            if (!first) first = tests[i], first_verdict = &verdicts[i];
            break;
        case Status::left_out: break;  // the student's loop samples nothing
        }
    }
    for (const auto& reason : skip_reasons) std::cout << "  skipped: " << reason << "\n";
    if (!first) {
        std::cout << "  " << passed << " passed (" << seconds_since(start) << ")\n";
        return true;
    }
    std::string said = first_verdict->message;
    while (!said.empty() && said.back() == '\n') said.pop_back();
    outcome.verdict = "failing";
    outcome.first_failing = first->name;
    // An unfinished exercise: its TODO list is the whole story.
    if (said.find("is not finished, so its kernel was not run") != std::string::npos) {
        outcome.verdict = "todos";
        std::cout << indented(said);
        return false;
    }
    std::cout << "  " << failed << " of " << tests.size() << " failed (" << seconds_since(start) << "). The first, "
              << first->name << ":\n";
    std::cout << indented(indented(said));
    if (first_verdict->reason != "the test failed.") std::cout << "    " << first_verdict->reason << "\n";
    std::cout << "  Failing, by group of cases:";
    for (const auto& g : group_order)
        if (groups[g].first) std::cout << " " << g << " " << groups[g].first << " of " << groups[g].second << ";";
    std::cout << "\n";
    if (!later.empty()) std::cout << "  Not run yet: " << later << "\n";
    return false;
}

int mode_check(const Runner& runner, const std::vector<lab::PlannedTest>& plan)
{
    const Options& o = runner.options;
    const lab::RungInfo& rung = runner.rung;
    CheckOutcome outcome;
    if (!o.case_name.empty()) {
        // One case alone, with everything its program printed.
        std::vector<const lab::PlannedTest*> chosen;
        for (const auto& t : plan)
            if (t.kind != lab::TestKind::racecheck &&
                (t.name.size() > o.case_name.size() + 1 &&
                 t.name.compare(t.name.size() - o.case_name.size() - 1, std::string::npos, "/" + o.case_name) == 0))
                chosen.push_back(&t);
        if (chosen.empty()) {
            std::cout << "lab: rung " << rung.id << " has no case " << o.case_name
                      << "; the names are as a failure gives them, such as int_n1856_b256\n";
            return 2;
        }
        std::string output;
        const std::vector<Verdict> verdicts = runner.run_all(chosen, &output);
        std::cout << indented(output);
        int failed = 0;
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            failed += verdicts[i].status == Status::failed;
            std::cout << chosen[i]->name << ": " << verdict_text(verdicts[i]);
        }
        return failed ? 1 : 0;
    }
    std::vector<const lab::PlannedTest*> small, large, speed;
    std::size_t largest = 0;
    for (const auto& t : plan) {
        if (t.kind == lab::TestKind::racecheck) continue;
        if (t.kind == lab::TestKind::speed) speed.push_back(&t);
        else if (t.kind == lab::TestKind::kernel && t.work > lab::kSmallWork) large.push_back(&t), largest = std::max(largest, t.elements);
        else small.push_back(&t);
    }
    const auto next_rung = [&]() -> const lab::RungInfo* {
        const auto& rungs = lab::Registry::kit().rungs();
        for (std::size_t i = 0; i + 1 < rungs.size(); ++i)
            if (rungs[i].id == rung.id) return &rungs[i + 1];
        return nullptr;
    };
    const std::string larger = std::to_string(large.size()) + " larger cases (up to " + size_words(largest) + " elements)";
    std::cout << "rung " << rung.id << ": the " << small.size() << " small cases first\n";
    if (!run_stage(runner, small, large.empty() ? "" : "the " + larger + "; they run once every small case passes.", outcome)) {
        write_progress(o, rung, outcome);
        return 1;
    }
    if (!large.empty()) {
        std::cout << "rung " << rung.id << ": now the " << larger
                  << (o.backend == "cpu" ? " (most of a minute on the CPU backend)" : "") << "\n" << std::flush;
        if (!run_stage(runner, large, "", outcome)) {
            write_progress(o, rung, outcome);
            return 1;
        }
    }
    if (!speed.empty() && o.backend == "cuda") {
        std::cout << "rung " << rung.id << ": correct; now its speed on this GPU\n";
        std::string output;
        const Verdict v = runner.run_all(speed, &output).front();
        std::istringstream lines(output);
        for (std::string line; std::getline(lines, line);)
            if (line.find("GB/s") != std::string::npos || line.rfind("thresholds:", 0) == 0) std::cout << "  " << line << "\n";
        if (v.status == Status::failed) {
            std::cout << indented(v.message) << "  " << v.reason << "\n";
            outcome.verdict = "slow";
        } else if (v.status == Status::passed) {
            outcome.verdict = "fast";
        } else {
            std::cout << "  skipped: " << v.reason << "\n";
        }
    }
    std::cout << "rung " << rung.id << " is correct: " << outcome.passed << " cases pass";
    if (outcome.skipped) std::cout << ", " << outcome.skipped << " skipped (above)";
    std::cout << (outcome.verdict == "fast" ? ", and it is fast enough" : outcome.verdict == "slow" ? ", but not fast enough yet" : "")
              << ".\n";
    if (o.backend == "cpu" && !speed.empty())
        std::cout << "Speed is measured on a GPU only: ./lab bench " << rung.number << " there.\n";
    if (const lab::RungInfo* next = next_rung())
        std::cout << "Next: rung " << next->id << " (" << next->title << "): ./lab check " << next->number
                  << "; the idea is in handouts/" << next->id << ".md\n";
    else
        std::cout << "That was the last rung: ./lab status shows the whole ladder.\n";
    write_progress(o, rung, outcome);
    return outcome.verdict == "slow" ? 1 : 0;
}

// Arguments in ctest's bracket syntax, which needs no escaping.
std::string bracket(const std::string& text) { return "[==[" + text + "]==]"; }

int mode_ctest(const Runner& runner, const std::vector<lab::PlannedTest>& plan, const std::string& self)
{
    const Options& o = runner.options;
    std::ostringstream file;
    file << "# Written by lab-case from rungs.json, tests/cases.json and tests/speed.json: the tests of rung "
         << runner.rung.id << ", each run and judged by lab-case.\n";
    for (const auto& t : plan) {
        file << "add_test(" << bracket(t.name) << ' ' << bracket(self) << " run --rung " << bracket(o.rung)
             << " --exe " << bracket(o.exe) << " --backend " << o.backend << " --timeout " << o.timeout;
        if (!o.sanitizer.empty()) file << " --sanitizer " << bracket(o.sanitizer);
        file << " --test " << bracket(t.name) << ")\n";
        std::string labels = runner.rung.label();
        if (t.kind != lab::TestKind::launcher) labels += ";kernel";
        if (t.kind == lab::TestKind::speed) labels += ";speed";
        if (t.kind == lab::TestKind::racecheck) labels += ";racecheck";
        file << "set_tests_properties(" << bracket(t.name) << " PROPERTIES LABELS \"" << labels
             << "\" SKIP_RETURN_CODE " << kSkipped << " TIMEOUT " << o.timeout + 30
             << (t.kind == lab::TestKind::speed ? " RUN_SERIAL TRUE" : "") << ")\n";
    }
    std::ofstream out(o.out);
    out << file.str();
    if (!out) {
        std::cerr << "lab-case: cannot write " << o.out << "\n";
        return 2;
    }
    return 0;
}

}  // namespace

// `lab-case gpu`: listing a program's tests needs no GPU; running them does, and where none is
// usable the runner itself says so and skips, as it does for a rung's kernel cases.
int mode_gpu(int argc, char** argv)
{
    if (argc < 3) usage("gpu needs a program to run");
    bool listing = false;
    for (int i = 3; i < argc; ++i) listing |= std::strcmp(argv[i], "--gtest_list_tests") == 0;
    if (!listing) {
        const lab::DeviceStatus& device = lab::device_status();
        if (!device.usable) {
            std::cout << "lab-case: skipped: " << device.reason << " This kit test needs an NVIDIA GPU; skipped.\n";
            return kSkipped;
        }
    }
    std::cout.flush();
    execvp(argv[2], argv + 2);  // a program named without a folder (bash) is looked up in PATH
    std::cout << "lab-case: FAILED: cannot run " << argv[2] << ": " << std::strerror(errno) << "\n";
    return 1;
}

int main(int argc, char** argv)
{
    if (argc >= 2 && std::strcmp(argv[1], "gpu") == 0) return mode_gpu(argc, argv);
    try {
        const Options options = parse(argc, argv);
        const lab::RungInfo& rung = lab::Registry::kit().get(options.rung);
        const Runner runner{options, rung};
        const bool racecheck = options.backend == "cuda" && !options.sanitizer.empty() && !options.racecheck_tool;
        const std::vector<lab::PlannedTest> plan = lab::planned_tests(rung, racecheck);
        if (options.mode == "run") return mode_run(runner, plan);
        if (options.mode == "batch") return mode_batch(runner, plan);
        if (options.mode == "catch") return mode_catch(runner, plan);
        if (options.mode == "check") return mode_check(runner, plan);
        if (options.mode == "ctest") {
            char self[4096];
            const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
            return mode_ctest(runner, plan, length > 0 ? std::string(self, static_cast<std::size_t>(length)) : argv[0]);
        }
        usage("unknown mode " + options.mode);
    } catch (const std::exception& e) {
        std::cout << "lab-case: FAILED: " << e.what() << "\n";
        return 1;
    }
}
