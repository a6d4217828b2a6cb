// TRUSTED SIDE. See checker.hpp: the cases (the speed case is speed_checker.cpp's).
#include "checker.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <mutex>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>

#include "lab/check.hpp"
#include "lab/device.hpp"
#include "lab/device_input.hpp"
#include "lab/diagnosis.hpp"
#include "lab/registry.hpp"
#include "lab/inputs.hpp"
#include "lab/process.hpp"
#include "lab/shape.hpp"
#include "case_verdict.hpp"
#include "protocol.hpp"
#include "runner_process.hpp"
#include "stops.hpp"

namespace lab::judge {

namespace {

namespace fs = std::filesystem;

// What a runner may write in all, results and messages together: far more than honest results need.
constexpr std::size_t kLogTail = 2048;

template <typename T>
std::uint32_t bits(T value)
{
    std::uint32_t b;
    std::memcpy(&b, &value, sizeof b);
    return b;
}

}  // namespace

Job job_for(const PlannedCase& p)
{
    Job j;
    j.op = std::string(name_of(p.c.op));
    j.input = std::string(name_of(p.c.input));
    j.n = p.c.n;
    j.seed = p.c.seed;
    j.offset = p.c.offset;
    j.grid = p.plan.grid;
    j.block = p.plan.block;
    j.shared_bytes = p.plan.shared_bytes;
    j.variant = p.plan.variant;
    j.cols = p.plan.cols;
    j.guard_count = kCanaryCount;
    j.tail_count = p.ends_exactly ? 0 : kCanaryCount;
    with_type(p.c.dtype(), [&](auto type) {
        using T = decltype(type);
        j.canary = bits(canary<T>(p.c.op));
        j.guard = bits(guard<T>());
        j.poison = bits(poison<T>());
    });
    return j;
}

bool says_memory_ran_out(const std::string& text)
{
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower.find("cudaerrormemoryallocation") != std::string::npos || lower.find("out of memory") != std::string::npos;
}

namespace {

std::string tail_of(const std::string& path) { return read_runner_file(path, kLogTail, true).value_or(""); }

// Whether job `index` had a cudaMalloc refused under any of `orders` orders, as the runner says (protocol.hpp).
bool runner_says_refused(const std::string& dir, std::size_t index, std::size_t orders)
{
    for (std::size_t o = 0; o < orders; ++o)
        if (read_runner_file(refused_file(dir, index, o), 256)) return true;
    return false;
}

}  // namespace

std::string not_run_after_stops(int stopped, bool only_time)
{
    if (!only_time)
        return "not run: " + std::to_string(stopped) + " earlier cases were stopped at a limit (time, CPU time, memory or "
               "processes), so this one would most likely be too";
    return "not run: " + std::to_string(stopped) + " earlier cases were stopped at the time limit, so this one would most "
           "likely be too. Fix the loop that never ends (the first case's report names the thread and the line), rebuild, "
           "and run again.";
}

namespace {

// Why each job has no result of its own, when the runner did not get to report one.
struct Outcome {
    std::vector<std::string> lost;  // per job: "" when it ran to the end
    // Per job, lost because it was stopped at a limit (time, the folder's disk), or not run after
    // such stops or past the rung's time: a verdict on the runner, not on an answer it gave.
    std::vector<char> at_limit;
    // Per job, the runner's time in it, as the progress file shows it (cases that end between two
    // looks share the time between them); -1 for one it never reached.
    std::vector<double> seconds;
};

// The bytes the files under `dir` take on its disk (their blocks: a sparse file fills nothing),
// links not followed.
std::uint64_t folder_bytes(const std::string& dir)
{
    std::uint64_t bytes = 0;
    std::error_code error;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, error), end;
         !error && it != end; it.increment(error)) {
        struct stat about {};
        if (lstat(it->path().c_str(), &about) == 0) bytes += static_cast<std::uint64_t>(about.st_blocks) * 512;
    }
    return bytes;
}

// How often a runner's folder is measured against its budget.
constexpr double kFolderCheckSeconds = 0.25;

// Whether job `index`'s launch was stopped at a time limit under one of its `order_count` orders: an
// error of its names kLaunchTimeoutName (protocol.hpp). The CPU backend stops an endless launch
// itself (after LAB_CPU_LAUNCH_SECONDS), so its runner goes on to the next job rather than hang: such
// a job counts toward the hang rule as one stopped here at the case limit does. A runner that says
// so falsely only gives up its own cases sooner.
bool launch_stopped(const std::string& dir, std::size_t index, std::size_t order_count)
{
    for (std::size_t o = 0; o < order_count; ++o)
        if (read_bounded(error_file(dir, index, o), kErrorBytes).find(kLaunchTimeoutName) != std::string::npos) return true;
    return false;
}

// `on_ended(j)` is called, on this thread, as soon as the progress file shows job j ended: its output is
// written (the runner writes it before it says so), so it can be checked while the runner goes on.
// `folder_budget`: the most the runner's folder may take on disk, every output and log together
// (0: no budget); past it, the runner is stopped as at a limit.
// `stops`: the rung's, shared with its other runners; this runner is runner `runner_index` of them.
Outcome run_all(const std::string& runner, const std::string& request, const std::string& dir, std::size_t count,
                std::size_t order_count, const Limits& limits, std::uint64_t folder_budget,
                const std::function<void(std::size_t)>& on_ended, Stops& stops, std::size_t runner_index)
{
    Outcome outcome;
    outcome.lost.assign(count, "");
    outcome.at_limit.assign(count, 0);
    outcome.seconds.assign(count, -1.0);
    const auto rung_start = Clock::now();
    ProgressFile progress(dir + "/progress");
    const std::string case_limit = std::to_string(static_cast<int>(limits.case_seconds)) + " s";
    std::size_t next = 0;
    const auto in_rung = [&](long job) { return static_cast<std::size_t>(job) * stops.runners + runner_index; };
    // The jobs after `from` that have not ended: not run, once the rule's cases were stopped at a limit.
    const auto give_up_from = [&](std::size_t from) {
        for (std::size_t i = from; i < count; ++i) {
            if (!outcome.lost[i].empty()) continue;
            outcome.at_limit[i] = 1;
            outcome.lost[i] = not_run_after_stops(stops.rule, stops.only_time.load());
        }
    };
    // The jobs after `from` that have not ended, when another runner of the rung failed.
    const auto abandon_from = [&](std::size_t from) {
        for (std::size_t i = from; i < count; ++i)
            if (outcome.lost[i].empty()) outcome.lost[i] = "not run: the judge stopped (another runner of the rung failed)";
    };
    long timeouts_looked_at = -1;  // the jobs up to this one were looked at for a launch stopped at a time limit
    // Whether the jobs ended since the last look bring the cases stopped at a limit below this
    // runner's next job to the rule's number.
    const auto hung_enough = [&](const Progress& seen) {
        for (long j = std::max(timeouts_looked_at + 1, static_cast<long>(next)); j <= seen.last_ended && j < static_cast<long>(count); ++j) {
            timeouts_looked_at = j;
            if (launch_stopped(dir, static_cast<std::size_t>(j), order_count)) stops.stopped(in_rung(j));
        }
        return stops.enough_below(in_rung(std::max<long>(seen.last_ended + 1, static_cast<long>(next))));
    };
    while (next < count) {
        if (stops.enough_below(in_rung(static_cast<long>(next)))) {  // (another runner's stops)
            give_up_from(next);
            return outcome;
        }
        if (stops.abort) {
            abandon_from(next);
            return outcome;
        }
        Child child = start_runner(runner, request, dir, std::to_string(next), limits);
        if (child.pid < 0) {
            for (std::size_t i = next; i < count; ++i) outcome.lost[i] = "the runner could not be started (fork failed, or its cgroup could not be joined)";
            return outcome;
        }
        long current = -1, ended = -1;
        auto current_since = Clock::now(), changed_since = Clock::now();
        // Where this runner's time went (Outcome::seconds, starting).
        auto mark = child.started;
        bool begun = false;
        long accounted = static_cast<long>(next) - 1;
        const auto account = [&](const Progress& seen, Clock::time_point now) {
            if (!begun && seen.last_started >= static_cast<long>(next)) {
                mark = now;
                begun = true;
            }
            if (seen.last_ended > accounted && seen.last_ended < static_cast<long>(count)) {
                const double each = std::chrono::duration<double>(now - mark).count() / static_cast<double>(seen.last_ended - accounted);
                for (long j = accounted + 1; j <= seen.last_ended; ++j) outcome.seconds[static_cast<std::size_t>(j)] = each;
                for (long j = accounted + 1; j <= seen.last_ended; ++j) on_ended(static_cast<std::size_t>(j));
                accounted = seen.last_ended;
                mark = now;
            }
        };
        int status = 0;
        bool exited = false, stopped = false;
        std::string stop_reason;
        auto folder_checked = Clock::now();
        while (true) {
            if (lab::process::ended(child.pid, status)) {
                exited = true;
                child.pid = -1;
                break;
            }
            const Progress p = progress.look();
            account(p, Clock::now());
            if (hung_enough(p)) {
                kill_runner(child);
                give_up_from(static_cast<std::size_t>(p.last_ended + 1));
                return outcome;
            }
            if (stops.abort) {
                kill_runner(child);
                abandon_from(static_cast<std::size_t>(p.last_ended + 1));
                return outcome;
            }
            if (p.last_started != current) current = p.last_started, current_since = Clock::now();
            if (p.last_started != current || p.last_ended != ended) ended = p.last_ended, changed_since = Clock::now();
            const auto now = Clock::now();
            const double case_elapsed = std::chrono::duration<double>(now - current_since).count();
            const double idle = std::chrono::duration<double>(now - changed_since).count();
            const double rung_elapsed = std::chrono::duration<double>(now - rung_start).count();
            if (current >= 0 && p.last_ended < current && case_elapsed > limits.case_seconds) {
                stop_reason = "stopped after " + case_limit + ", " + limits.whose + " limit for one case: a loop that never ends, or far too slow";
                stopped = true;
            } else if ((current < 0 || p.last_ended >= current) && idle > limits.case_seconds) {
                // Outside any case: code that runs before main, or after a case, and does not end.
                stop_reason = "stopped after " + case_limit + (current < 0 ? " without starting its first case" : " between cases") +
                              " (" + limits.whose + " limit for one case): code outside the kernel that never ends";
                stopped = true;
            } else if (rung_elapsed > limits.rung_seconds) {
                stop_reason = "rung_limit";
                stopped = true;
            } else if (folder_budget > 0 && std::chrono::duration<double>(now - folder_checked).count() > kFolderCheckSeconds) {
                folder_checked = now;
                if (const std::uint64_t used = folder_bytes(dir); used > folder_budget) {
                    stop_reason = "stopped: it had written " + std::to_string(used >> 20) + " MiB into its folder, more than the " +
                                  std::to_string(folder_budget >> 20) +
                                  " MiB every output and log of the rung's cases together may take (a disk filled)";
                    stopped = true;
                }
            }
            if (stopped) {
                // What its cgroup stopped meanwhile (a fork bomb at the process limit) says why.
                if (const std::string reached = child.sandbox->limit_reached(); !reached.empty() && stop_reason != "rung_limit")
                    stop_reason += "; meanwhile " + reached;
                kill_runner(child);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(current >= 0 && p.last_ended == current ? 1 : 2));
        }
        const Progress p = progress.look();
        account(p, Clock::now());
        if (hung_enough(p)) {
            if (child.pid > 0) kill_runner(child);
            give_up_from(static_cast<std::size_t>(std::max<long>(p.last_ended + 1, 0)));
            return outcome;
        }
        if (p.last_started > p.last_ended && p.last_started >= static_cast<long>(next) && p.last_started < static_cast<long>(count))
            outcome.seconds[static_cast<std::size_t>(p.last_started)] =
                std::chrono::duration<double>(Clock::now() - (begun ? mark : child.started)).count();
        const long resume = std::max<long>(p.last_ended, p.last_started);
        if (stopped && stop_reason == "rung_limit") {
            for (std::size_t i = static_cast<std::size_t>(std::max<long>(resume, 0)); i < count; ++i)
                if (static_cast<long>(i) > p.last_ended) {
                    outcome.lost[i] = "not run: the rung's cases took longer than " + limits.whose + " " +
                                      std::to_string(static_cast<int>(limits.rung_seconds)) + " s in all";
                    outcome.at_limit[i] = 1;
                }
            return outcome;
        }
        if (exited && WIFEXITED(status) && WEXITSTATUS(status) == 0 && p.last_ended + 1 >= static_cast<long>(count))
            return outcome;
        // The runner stopped before the end: the job it was in fails, and a fresh runner goes on.
        if (p.last_started > p.last_ended) {
            std::string why = stopped ? stop_reason : describe_exit(status, child) + " in the middle of this case";
            const std::string log = tail_of(dir + "/runner.log");
            if (!log.empty() && !stopped) why += "; it printed, at the end:\n" + log;
            outcome.lost[static_cast<std::size_t>(p.last_started)] = why;
            outcome.at_limit[static_cast<std::size_t>(p.last_started)] = stopped;
            // A runner killed at the memory or process limit is given up on like one stopped at the
            // time limit: each fresh runner would fill the machine's memory again, case after case. So
            // is one killed for its CPU time: on the CPU backend an endless kernel spins every core.
            const bool at_limit = stopped || (child.sandbox && !child.sandbox->limit_reached().empty()) ||
                                  (exited && killed_for_cpu_time(status));
            if (!stopped && at_limit) stops.only_time = false;
            if (at_limit) stops.stopped(in_rung(p.last_started));
            if (at_limit && stops.enough_below(in_rung(p.last_started + 1))) {
                give_up_from(static_cast<std::size_t>(p.last_started) + 1);
                return outcome;
            }
            next = static_cast<std::size_t>(p.last_started) + 1;
        } else if (exited && WIFEXITED(status) && WEXITSTATUS(status) == kStickyError) {
            next = static_cast<std::size_t>(resume) + 1;
        } else {
            // It ended between jobs without finishing (or never started one): nothing more will come of it.
            const std::string log = tail_of(dir + "/runner.log");
            const std::string why = (exited ? describe_exit(status, child) : stop_reason) + " before reaching this case" +
                                    (log.empty() ? "" : ":\n" + log);
            for (std::size_t i = static_cast<std::size_t>(resume + 1); i < count; ++i) {
                outcome.lost[i] = why;
                outcome.at_limit[i] = stopped;
            }
            return outcome;
        }
    }
    return outcome;
}

// The totals of the inputs checked so far in this process, by what makes an input (its kind, size,
// operator and seed): a driver rung's schemes, and rungs 07-09, share theirs, of 2^31 + 5 ints. Each
// is computed once, by the first thread that needs it; the others wait for it. A plain uniform int
// input's is drawn without the input: on the GPU where there is one (total_on_device, 12 s of a core
// a grading otherwise), else on every core (total_without_input); any other's is made from the input.
template <typename T>
Total total_for(const Case& c, const std::function<const std::vector<T>&()>& values)
{
    static std::mutex lock;
    static std::map<std::string, std::shared_future<Total>> known;
    const std::string key = input_key(c);
    std::promise<Total> mine;
    std::shared_future<Total> total;
    bool first = false;
    {
        const std::lock_guard<std::mutex> held(lock);
        const auto found = known.find(key);
        if (found != known.end()) total = found->second;
        else known.emplace(key, total = mine.get_future().share()), first = true;
    }
    if (first) {
        try {
            std::optional<Total> drawn;
            if constexpr (std::is_same_v<T, int>) {
                const DeviceStatus& device = device_status();
                if (device.usable && !device.emulated) drawn = total_on_device(c);
                if (!drawn) drawn = total_without_input(c);
            }
            mine.set_value(drawn ? *drawn : total_of(c.op, values()));
        } catch (...) {
            mine.set_exception(std::current_exception());
        }
    }
    return total.get();
}

// The inputs of the rungs checked block by block or row by row, made here once for every rung and
// scheme that checks the same case (rung 13's two schemes check each matrix): rungs 01-06 plan the
// same cases from the same seeds, and a grading on a GPU made each of their inputs six times (0.77
// billion elements, 129 million distinct: handouts/benchmark/grading_performance.md, "What bounds a
// grading now"). The newest are kept, kKeptInputBytes in all (a rung's cases take
// about half of it on a GPU, so the next rung finds every one however far behind it runs); one
// larger than a quarter of that is made for its case alone. The first thread that needs an input
// makes it and the others wait for it; a kept input is never changed.
constexpr std::size_t kKeptInputBytes = std::size_t{1} << 30;

template <typename T>
std::shared_ptr<const HostInput<T>> shared_input(const Case& c)
{
    using Made = std::shared_future<std::shared_ptr<const HostInput<T>>>;
    const std::size_t bytes = c.n * operands_of(c.op) * sizeof(T);  // (a dot product's x and y)
    if (bytes > kKeptInputBytes / 4) return std::make_shared<const HostInput<T>>(make_input<T>(c));
    static std::mutex lock;
    static std::deque<std::string> oldest_first;
    static std::map<std::string, std::pair<Made, std::size_t>> kept;
    static std::size_t kept_bytes = 0;
    const std::string key = input_key(c);
    std::promise<std::shared_ptr<const HostInput<T>>> mine;
    Made made;
    bool first = false;
    {
        const std::lock_guard<std::mutex> held(lock);
        if (const auto found = kept.find(key); found != kept.end()) {
            made = found->second.first;
        } else {
            made = mine.get_future().share();
            first = true;
            kept.emplace(key, std::make_pair(made, bytes));
            oldest_first.push_back(key);
            kept_bytes += bytes;
            while (kept_bytes > kKeptInputBytes && oldest_first.size() > 1) {
                const auto gone = kept.find(oldest_first.front());
                kept_bytes -= gone->second.second;
                kept.erase(gone);
                oldest_first.pop_front();
            }
        }
    }
    if (first) {
        try {
            mine.set_value(std::make_shared<const HostInput<T>>(make_input<T>(c)));
        } catch (...) {
            mine.set_exception(std::current_exception());
        }
    }
    return made.get();
}

template <typename T>
void check_job(const RungInfo& rung, const PlannedCase& p, std::size_t index, const std::vector<std::string>& orders,
               const std::string& dir, CaseResult& result)
{
    // The input, made here only where it is needed: a total-checked rung's is known by its total
    // (total_for), until a failure is to be described.
    const SlotLayout::Kind layout = rung.shape->slot_layout(rung, p.plan).kind;
    std::shared_ptr<const HostInput<T>> made;
    const auto input = [&]() -> const HostInput<T>& {
        if (!made)
            made = layout != SlotLayout::Kind::total ? shared_input<T>(p.c)
                                                     : std::make_shared<const HostInput<T>>(make_input<T>(p.c));
        return *made;
    };
    const std::function<const std::vector<T>&()> values = [&]() -> const std::vector<T>& { return input().values; };
    std::optional<Total> total;
    if (layout == SlotLayout::Kind::total) total = total_for<T>(p.c, values);
    const std::size_t expected_bytes = (output_count(p.plan, p.c.op) + 2 * kCanaryCount) * sizeof(T);
    std::vector<OrderRun<T>> runs(orders.size());
    for (std::size_t o = 0; o < orders.size(); ++o) {
        OrderRun<T>& run = runs[o];
        run.order = orders[o];
        if (const auto what = read_runner_file(error_file(dir, index, o), kErrorBytes)) {
            run.error = *what;
            result.memory_refused = result.memory_refused || says_memory_ran_out(*what);
        } else {
            // Read straight into place (a large case's output is 64 MiB or more: no copy on the way).
            run.guarded.resize(expected_bytes / sizeof(T));
            if (!read_runner_file_exactly(output_file(dir, index, o), run.guarded.data(), expected_bytes))
                std::vector<T>().swap(run.guarded);
        }
    }
    judge_runs<T>(rung, p.c, p.plan, input, total, runs, result);
    if (result.status == "failed")
        result.memory_refused = result.memory_refused || runner_says_refused(dir, index, orders.size());
}

}  // namespace


LimitedRun run_limited(const std::vector<std::string>& argv, const std::string& dir, const Limits& limits, double seconds)
{
    const std::unique_ptr<Confinement> sandbox = confined(argv, dir, limits);
    LimitedRun ended;
    const pid_t pid = lab::process::start(sandbox->argv(), sandbox->options(dir + "/runner.log", true));
    if (pid < 0) return ended;
    ended.exited = lab::process::wait_for(pid, seconds, ended.status);
    if (!ended.exited) lab::process::kill_group(pid);
    ended.limit = sandbox->limit_reached();
    return ended;
}

void side_by_side(std::size_t count, int threads, const std::function<void(std::size_t)>& each)
{
    Beside pool(static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), std::max<std::size_t>(count, 1))),
                each);
    for (std::size_t k = 0; k < count; ++k) pool.add(k);
    pool.finish();
}


std::vector<CaseResult> run_and_check(const RungInfo& rung, const std::string& runner,
                                      const std::vector<PlannedCase>& cases, const std::vector<std::string>& orders,
                                      const Limits& limits, const std::string& work_dir,
                                      std::string (*replay)(const RungInfo&, const Case&, const LaunchPlan&), RungTimes* times,
                                      const CaseDone& done)
{
    const auto preparing_started = Clock::now();
    std::vector<CaseResult> results;
    Request request;
    request.rung = rung.id;
    request.orders = orders;
    std::vector<std::size_t> job_of;  // case index -> job index (or npos when skipped)
    for (const PlannedCase& p : cases) {
        CaseResult r;
        r.name = p.c.name;
        r.group = p.c.group;
        r.hidden = p.hidden;
        r.op = std::string(name_of(p.c.op));
        r.input = std::string(name_of(p.c.input));
        r.n = p.c.n;
        r.seed = p.c.seed;
        r.offset = p.c.offset;
        r.block = p.plan.block;
        r.grid = p.plan.grid;
        r.replay = replay(rung, p.c, p.plan);
        if (!p.skip.empty()) {
            r.status = "skipped";
            r.message = p.skip;
            job_of.push_back(std::string::npos);
        } else {
            job_of.push_back(request.jobs.size());
            request.jobs.push_back(job_for(p));
        }
        results.push_back(std::move(r));
    }
    if (request.jobs.empty()) return results;
    fs::remove_all(work_dir);
    fs::create_directories(work_dir);
    const std::vector<std::string> shown_orders = orders.empty() ? std::vector<std::string>{"the GPU's"} : orders;
    // The jobs are dealt to the rung's runners in turn (Limits::runners; one runner takes them all,
    // in its folder `work_dir`, each other in a folder of its own): job j is runner j % R's job j / R.
    const std::size_t runner_count = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(limits.runners, 1)), 1,
                                                             request.jobs.size());
    const auto folder_of = [&](std::size_t r) {
        return runner_count == 1 ? work_dir : work_dir + "/runner-" + std::to_string(r);
    };
    // Each case as it stands before any check, for the jobs the hang rule gives up afterwards.
    const std::vector<CaseResult> unjudged = runner_count > 1 ? results : std::vector<CaseResult>{};
    std::vector<Request> requests(runner_count, request);
    for (Request& one : requests) one.jobs.clear();
    for (std::size_t j = 0; j < request.jobs.size(); ++j) requests[j % runner_count].jobs.push_back(request.jobs[j]);
    // Each folder's budget: every job's output under every order, with its guards and a file's worth
    // of blocks besides (an output or an error, rounded up to the disk's blocks; an int takes what a
    // float takes), and a log (one file: at most the runners' per-file limit) and the small files.
    std::vector<std::uint64_t> folder_budget(runner_count, (limits.runner.file_bytes > 0 ? limits.runner.file_bytes
                                                                                          : std::uint64_t{256} << 20) +
                                                               (std::uint64_t{64} << 20));
    std::vector<std::size_t> case_of(request.jobs.size());
    for (std::size_t i = 0; i < cases.size(); ++i)
        if (job_of[i] != std::string::npos) {
            case_of[job_of[i]] = i;
            const PlannedCase& p = cases[i];
            folder_budget[job_of[i] % runner_count] +=
                shown_orders.size() * ((output_count(p.plan, p.c.op) + 2 * kCanaryCount) * sizeof(float) + (8 << 10));
        }
    for (std::size_t r = 0; r < runner_count; ++r) {
        fs::create_directories(folder_of(r));
        std::ofstream(folder_of(r) + "/request.json") << to_json(requests[r]);
    }
    const auto running_started = Clock::now();
    if (times) times->preparing = std::chrono::duration<double>(running_started - preparing_started).count();
    const auto check = [&](std::size_t job) {
        const std::size_t i = case_of[job];
        with_type(cases[i].c.dtype(), [&](auto type) {
            check_job<decltype(type)>(rung, cases[i], job / runner_count, shown_orders, folder_of(job % runner_count), results[i]);
        });
        if (done) done(i, results[i]);
    };
    // Each case is checked on its own, `limits.check_threads` of them at a time, as soon as its
    // runner has ended it: beside the runners, which go on with their next cases.
    Beside checking(limits.check_threads, check);
    Outcome outcome;
    outcome.lost.assign(request.jobs.size(), "");
    outcome.at_limit.assign(request.jobs.size(), 0);
    outcome.seconds.assign(request.jobs.size(), -1.0);
    Stops stops(runner_count, limits.hung_before_giving_up);
    std::vector<std::exception_ptr> errors(runner_count);
    std::vector<double> outside(runner_count, 0.0);  // each runner's time that no case had
    const std::string account = lab::process::current_account();  // the runners' CPU time counts to the caller's
    const auto run_one = [&](std::size_t r) {
        try {
            const lab::process::Account counted(account);
            const auto started = Clock::now();
            const Outcome mine = run_all(runner, folder_of(r) + "/request.json", folder_of(r), requests[r].jobs.size(),
                                         shown_orders.size(), limits, folder_budget[r],
                                         [&](std::size_t j) { checking.add(j * runner_count + r); }, stops, r);
            outside[r] = std::chrono::duration<double>(Clock::now() - started).count();
            for (std::size_t j = 0; j < mine.lost.size(); ++j) {
                const std::size_t job = j * runner_count + r;
                outcome.lost[job] = mine.lost[j];
                outcome.at_limit[job] = mine.at_limit[j];
                outcome.seconds[job] = mine.seconds[j];
                if (mine.seconds[j] > 0) outside[r] -= mine.seconds[j];
            }
        } catch (...) {
            errors[r] = std::current_exception();
            stops.abort = true;
        }
    };
    {
        std::vector<std::thread> others;
        try {
            for (std::size_t r = 1; r < runner_count; ++r) others.emplace_back(run_one, r);
        } catch (...) {  // a thread that could not be started: the runners started stop, and the error is said
            errors.front() = std::current_exception();
            stops.abort = true;
        }
        if (!stops.abort) run_one(0);
        for (std::thread& t : others) t.join();
    }
    for (const std::exception_ptr& error : errors)
        if (error) {
            checking.finish();
            std::rethrow_exception(error);
        }
    // The hang rule in the rung's order (Stops): every job after the rule's last stop is given up,
    // whatever another runner made of it meanwhile, as one runner would not have run it.
    std::vector<char> given_up(request.jobs.size(), 0);
    if (runner_count > 1)
        if (const std::optional<std::size_t> last = stops.last_kept())
            for (std::size_t job = *last + 1; job < request.jobs.size(); ++job) {
                outcome.lost[job] = not_run_after_stops(stops.rule, stops.only_time.load());
                outcome.at_limit[job] = 1;
                given_up[job] = 1;
            }
    // What of the runners' time no case had: starting them (CUDA's context), and stopping them,
    // their sandboxes and cgroups after a limit, which under load can take seconds.
    double outside_cases = 0;
    for (const double s : outside) outside_cases += std::max(0.0, s);
    const auto checking_started = Clock::now();
    // The jobs the runners never said they ended: lost (their reason is the case's message), or, should
    // one be neither, checked now like the rest. A lost job's reason stands over any check of it.
    for (std::size_t job = 0; job < request.jobs.size(); ++job)
        if (outcome.lost[job].empty()) checking.add(job);  // nothing for one already checked
    checking.finish();
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const std::size_t job = job_of[i];
        if (job == std::string::npos) continue;
        if (given_up[job]) results[i] = unjudged[i];  // nothing of a check of it stands
        results[i].seconds = outcome.seconds[job];
        if (outcome.lost[job].empty()) continue;
        CaseResult& r = results[i];
        r.status = "failed";
        r.message = "rung " + rung.id + ", case " + r.name + ": " + outcome.lost[job];
        r.at_limit = outcome.at_limit[job];
        r.memory_refused = !r.at_limit && (says_memory_ran_out(outcome.lost[job]) ||
                                           runner_says_refused(folder_of(job % runner_count), job / runner_count, shown_orders.size()));
        if (done) done(i, r);
    }
    if (times) {
        times->starting = std::max(0.0, outside_cases);
        times->checking = std::chrono::duration<double>(Clock::now() - checking_started).count();
    }
    return results;
}

}  // namespace lab::judge
