// TRUSTED SIDE. The trusted checker: runs a rung's runner (judge/untrusted/runner.cpp, built with
// the submission's kernel) as a child process on the cases the grader chose, confined as its caller
// says (Limits::confine: the grader's sandbox), and checks every
// output buffer it hands back in this process, with the kit's own checking code (lab/check.hpp, the
// same the suites use): each case as soon as the runner has ended it, beside the runner, and an
// input's exact total once for every case that reduces the same input. The runner's exit status and what it prints never decide a verdict: a case
// passes only when its output, read back with the size this process expects, is right under every
// thread order. A runner that crashes, hangs past the case limit or leaves a sticky CUDA error fails
// the case it was running, and a fresh runner starts at the next one.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include "case_result.hpp"
#include "limits.hpp"
#include "lab/cases.hpp"
#include "lab/exit_status.hpp"
#include "lab/plan.hpp"
#include "lab/registry.hpp"
#include "lab/speed.hpp"
#include "protocol.hpp"
#include "runner_files.hpp"

namespace lab::judge {

struct PlannedCase {
    Case c;
    bool hidden = false;
    LaunchPlan plan;
    std::string skip;  // not run here, and why (a GPU-only case on the CPU backend, say)
    // The input ends at its last element, with no canaries after it (the sanitizer's pass): a read
    // past the end, even one whose value is thrown away, leaves the allocation, where memcheck and
    // the CPU backend's guard page see it; the canaries would have taken it.
    bool ends_exactly = false;
};


// `each(k)` for every k added, on `threads` threads of its own, in the order they were added, while
// the adding thread goes on: the checks of the cases a runner has ended, beside the runner; a
// grading's sanitizer and lessons passes of the rungs whose cases have ended, beside the others'
// cases. An exception in any stops the others from starting more, and finish() throws the first
// once every thread has stopped.
class Beside {
public:
    Beside(int threads, std::function<void(std::size_t)> each) : each_(std::move(each))
    {
        for (int t = 0; t < std::max(1, threads); ++t) threads_.emplace_back([this] { work(); });
    }
    ~Beside()
    {
        try {
            finish();
        } catch (...) {
        }
    }
    // Queues each(k); nothing when k was added before.
    void add(std::size_t k)
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!added_.insert(k).second) return;
        queue_.push_back(k);
        ready_.notify_one();
    }
    // Waits for every check added; throws the first exception one of them threw.
    void finish()
    {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            closed_ = true;
        }
        ready_.notify_all();
        for (std::thread& t : threads_)
            if (t.joinable()) t.join();
        if (first_) std::rethrow_exception(std::exchange(first_, nullptr));
    }

private:
    void work()
    {
        while (true) {
            std::size_t k = 0;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [this] { return !queue_.empty() || closed_; });
                if (queue_.empty() || first_) return;
                k = queue_.front();
                queue_.pop_front();
            }
            try {
                each_(k);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(mutex_);
                if (!first_) first_ = std::current_exception();
                queue_.clear();
            }
        }
    }
    std::function<void(std::size_t)> each_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::size_t> queue_;
    std::set<std::size_t> added_;
    bool closed_ = false;
    std::exception_ptr first_;
    std::vector<std::thread> threads_;
};


// each(k) for every k in [0, count), `threads` of them at a time, while this thread waits: the
// rungs graded side by side, the cases checked at once. An exception in any stops the others from
// starting more, and the first is thrown here once every thread has stopped.
void side_by_side(std::size_t count, int threads, const std::function<void(std::size_t)>& each);

// Why a case was not run after `stopped` earlier ones were stopped at a limit (the kit's hang rule,
// Limits::hung_before_giving_up): at the time limit alone (`only_time`), or at any limit.
std::string not_run_after_stops(int stopped, bool only_time);

// How a program run by run_limited ended.
struct LimitedRun {
    bool exited = false;  // on its own (else stopped at the time limit)
    int status = 0;       // waitpid's status, when it exited
    std::string limit;    // a limit its sandbox reached
};

// `argv` run in a sandbox that can write only `dir` (its output to dir/runner.log), within the
// runners' limits and at most `seconds`; stopped, with every process it started, past them.
LimitedRun run_limited(const std::vector<std::string>& argv, const std::string& dir, const Limits& limits, double seconds);

// The runner's job for one planned case, with the canary, guard and poison values of its type.
Job job_for(const PlannedCase& p);

// Whether CUDA's words (a runner's error file or log, a tool's log) say the GPU's memory ran out: what
// another grading sharing the GPU can cause (CaseResult::memory_refused).
bool says_memory_ran_out(const std::string& text);

// Called once for each case that runs, with its index in `cases` and its result, as soon as that
// is final (from any of the checking threads; skipped cases are not run and not reported): the
// suites' tests each wait for their own case's, while the runner goes on with the next.
using CaseDone = std::function<void(std::size_t, const CaseResult&)>;

// `replay` makes the command that replays one case on the student's machine.
// Where run_and_check's time went besides the cases (each CaseResult has its own seconds): the
// grader's preparing (the request, the work folder), the runners' start-up (to their first case) and
// the grader's checking of what they handed back. With the cases, these cover all of its time; where
// several runners share the rung's cases (Limits::runners), their start-ups and cases are summed over
// them, and so come to more than the rung's wall time.
struct RungTimes {
    double preparing = 0, starting = 0, checking = 0;
};
std::vector<CaseResult> run_and_check(const RungInfo& rung, const std::string& runner,
                                      const std::vector<PlannedCase>& cases, const std::vector<std::string>& orders,
                                      const Limits& limits, const std::string& work_dir,
                                      std::string (*replay)(const RungInfo&, const Case&, const LaunchPlan&),
                                      RungTimes* times = nullptr, const CaseDone& done = {});

// The rung's speed case, timed by its runner: each answer checked here against the kit's speed
// inputs replayed from the same seed. `wrong` says what went wrong; else the median time.
struct SpeedRun {
    std::string wrong;
    double median_ms = 0;
    double running = 0, checking = 0;  // seconds: the runner's, from its go to its end; the checks here after it
};
// The inputs the runner makes from the job's seed, made here once: the grader times the kit's
// baseline on them, restart()s them, and run_speed checks each answer against them (the one the
// job needs is required).
struct SpeedReplay {
    SpeedInputs* sums = nullptr;     // a full reduction's
    RowSpeedInputs* rows = nullptr;  // a row kernel's
};

// A speed case's runner, started ahead of its turn (SpeedJob::wait_for_go): it makes its inputs and
// loads its kernels while nothing is timed, then waits for run_speed's go. Its limits: the rubric's
// limit for one case to get ready, and again from the go to its end. Destroyed before run_speed,
// it is stopped.
class StartedSpeed {
public:
    StartedSpeed(const RungInfo& rung, const std::string& runner, SpeedJob job, const Limits& limits, std::string work_dir);
    ~StartedSpeed();
    StartedSpeed(const StartedSpeed&) = delete;
    StartedSpeed& operator=(const StartedSpeed&) = delete;
    // Until the runner is ready, has ended, or ran past its limit (then it is stopped).
    void wait_ready();

private:
    friend SpeedRun run_speed(StartedSpeed& started, SpeedReplay replay);
    struct State;
    std::unique_ptr<State> state_;
};
SpeedRun run_speed(StartedSpeed& started, SpeedReplay replay);

}  // namespace lab::judge
