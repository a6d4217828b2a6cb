// TRUSTED SIDE. The speed case (checker.hpp's run_speed): the rung's runner times its launches, and
// every launch's answer is checked here against the same inputs replayed.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "checker.hpp"
#include "lab/check.hpp"
#include "lab/device.hpp"
#include "lab/full_reduction.hpp"
#include "lab/process.hpp"
#include "lab/speed.hpp"
#include "protocol.hpp"
#include "runner_process.hpp"

namespace lab::judge {

namespace fs = std::filesystem;

namespace {

// Every launch of a speed job, once its runner has ended: speed.out's time for it, and its answer
// checked by check(s, lines), which reads what else the launch left (the rest of its line, or its
// output file) and returns what is wrong, "" when right, or nothing when the runner left too little.
// The median of the timed launches' times, or what was wrong first.
template <typename Check>
SpeedRun checked_launches(const SpeedJob& job, int status, const Child& child, const std::string& work_dir, Check check)
{
    SpeedRun result;
    const int launches = job.warmup + job.samples;
    const std::string of_op = job.op.empty() ? "" : " of " + job.op;
    std::istringstream lines(read_bounded(work_dir + "/speed.out", static_cast<std::size_t>(launches) * 64));
    std::vector<double> times;
    for (int s = 0; s < launches; ++s) {
        double ms = 0;
        std::optional<std::string> wrong;
        if (lines >> ms) wrong = check(s, lines);
        if (!wrong) {
            result.wrong = "the runner handed back " + std::to_string(s) + " of its " + std::to_string(launches) +
                           " timed launches" + of_op + " (" + describe_exit(status, child) + ")";
            return result;
        }
        if (!wrong->empty()) {
            result.wrong = "launch " + std::to_string(s + 1) + " of the speed case" + of_op + ": " + *wrong +
                           ". Each timed launch reads an input that changed since the last one: a kernel that hands "
                           "back an earlier result instead of reading its input gets it wrong.";
            return result;
        }
        if (s >= job.warmup) times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    result.median_ms = times[times.size() / 2];
    return result;
}

// A row kernel's timed launches checked one by one, in order, each against its input replayed on
// the host (RowSpeedInputs::next_on_host, once for every launch, warm-ups included): while its runner
// still times the next ones (the runner says which it has written whole in its progress file), and
// the rest once it has ended. Each check's result is kept: "" right, what is wrong, or nothing when
// the runner's output was not whole. A warm-up launch hands back nothing and counts as right.
class RowLaunches {
public:
    RowLaunches(const RungInfo& rung, const SpeedJob& job, const std::string& work_dir, RowSpeedInputs& replay)
        : rung_(rung), op_(parse_op(job.op)), dir_(work_dir), warmup_(job.warmup),
          plan_(plan_launch(rung, job.n, job.block, device_status().shape, 0, job.scheme, job.cols)),
          got_(output_count(plan_, op_)), inputs_(&replay), results_(static_cast<std::size_t>(job.warmup + job.samples))
    {
    }
    // Checks every launch the progress file names that is not checked yet.
    void catch_up()
    {
        long last = -1;
        std::istringstream in(read_runner_file(speed_progress_file(dir_), 16 * results_.size()).value_or(""));
        for (long k; in >> k;) last = std::max(last, k);
        while (checked_ <= last && checked_ < static_cast<long>(results_.size())) check(checked_++);
    }
    // Launch s's result, checked now if it was not yet.
    std::optional<std::string> result(int s)
    {
        while (checked_ <= s) check(checked_++);
        return results_[static_cast<std::size_t>(s)];
    }

private:
    void check(long s)
    {
        const std::vector<float>& input = inputs_->next_on_host(static_cast<int>(s % 2));
        if (s < warmup_) {
            results_[static_cast<std::size_t>(s)] = std::string();
            return;
        }
        const std::string path = speed_output_file(dir_, static_cast<int>(s));
        const bool whole = read_runner_file_exactly(path, got_.data(), got_.size() * sizeof(float));
        fs::remove(path);
        if (!whole) return;
        const Verdict v = check_output(rung_, op_, plan_, input, got_);
        results_[static_cast<std::size_t>(s)] = v.ok ? std::string() : v.first_wrong;
    }
    const RungInfo& rung_;
    Op op_;
    std::string dir_;
    long warmup_;
    LaunchPlan plan_;
    std::vector<float> got_;
    RowSpeedInputs* inputs_;
    std::vector<std::optional<std::string>> results_;
    long checked_ = 0;
};

SpeedRun check_speed(const RungInfo& rung, const SpeedJob& job, int status, const Child& child, const std::string& work_dir,
                     SpeedReplay replay, RowLaunches* rows);

}  // namespace

struct StartedSpeed::State {
    const RungInfo& rung;
    SpeedJob job;
    Limits limits;
    std::string dir;
    Child child;
    bool ready = false, ended = false, late = false;
    int status = 0;
};

StartedSpeed::StartedSpeed(const RungInfo& rung, const std::string& runner, SpeedJob job, const Limits& limits,
                           std::string work_dir)
    : state_(new State{rung, std::move(job), limits, std::move(work_dir), {}})
{
    State& s = *state_;
    s.job.wait_for_go = true;
    fs::remove_all(s.dir);
    fs::create_directories(s.dir);
    Request request;
    request.rung = rung.id;
    request.speed = s.job;
    const std::string request_path = s.dir + "/request.json";
    std::ofstream(request_path) << to_json(request);
    s.child = start_runner(runner, request_path, s.dir, "speed", s.limits);
}

StartedSpeed::~StartedSpeed()
{
    if (state_ && state_->child.pid > 0 && !state_->ended) kill_runner(state_->child);
}

void StartedSpeed::wait_ready()
{
    State& s = *state_;
    if (s.ready || s.ended || s.late) return;
    const auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - s.child.started).count(); };
    while (!(s.ready = ::access(speed_ready_file(s.dir).c_str(), F_OK) == 0) &&
           !(s.ended = s.child.pid < 0 || lab::process::ended(s.child.pid, s.status)) && since_start() < s.limits.case_seconds)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!s.ready && !s.ended) {
        kill_runner(s.child);
        s.late = true;
    }
}

SpeedRun run_speed(StartedSpeed& started, SpeedReplay replay)
{
    StartedSpeed::State& s = *started.state_;
    const SpeedJob& job = s.job;
    if (job.op.empty() ? !replay.sums : !replay.rows)
        throw std::logic_error("run_speed: no speed inputs to check the runner's answers against (SpeedReplay)");
    started.wait_ready();
    SpeedRun result;
    const std::string limit_text =
        "the speed case ran past " + s.limits.whose + " " + std::to_string(static_cast<int>(s.limits.case_seconds)) + " s limit for one case";
    if (s.late) {
        result.wrong = limit_text + " (before its first launch)";
        return result;
    }
    std::optional<RowLaunches> rows;
    if (!job.op.empty()) rows.emplace(s.rung, job, s.dir, *replay.rows);
    const auto go = Clock::now();
    if (!s.ended) {
        // The go: made here, never through a link the runner may have put in its place.
        const int fd = ::open(speed_go_file(s.dir).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) ::close(fd);
        const auto since_go = [&] { return std::chrono::duration<double>(Clock::now() - go).count(); };
        if (rows) {
            // A row kernel's outputs (64 MB each) are checked as the runner writes them.
            while (!(s.ended = lab::process::ended(s.child.pid, s.status)) && since_go() < s.limits.case_seconds) {
                rows->catch_up();
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        } else {
            s.ended = lab::process::wait_for(s.child.pid, std::max(0.0, s.limits.case_seconds - since_go()), s.status, 2);
        }
        if (!s.ended) {
            kill_runner(s.child);
            s.ended = true;
            result.wrong = limit_text;
            result.running = since_go();
            return result;
        }
    }
    const auto checking_started = Clock::now();
    result = check_speed(s.rung, job, s.status, s.child, s.dir, replay, rows ? &*rows : nullptr);
    result.running = std::chrono::duration<double>(checking_started - go).count();
    result.checking = std::chrono::duration<double>(Clock::now() - checking_started).count();
    return result;
}

namespace {

// Every launch's answer, checked against the same inputs replayed here.
SpeedRun check_speed(const RungInfo& rung, const SpeedJob& job, int status, const Child& child, const std::string& work_dir,
                     SpeedReplay replay, RowLaunches* rows)
{
    if (job.op.empty()) {
        SpeedInputs& inputs = *replay.sums;
        const std::size_t depth =
            FullReduction(baseline_binding(), rung, Op::sum, Dtype::f32, job.n, job.block, device_status().shape, job.scheme)
                .addition_depth();
        return checked_launches(job, status, child, work_dir, [&](int s, std::istream& line) -> std::optional<std::string> {
            std::uint32_t bits = 0;
            if (!(line >> bits)) return std::nullopt;
            float got;
            std::memcpy(&got, &bits, sizeof got);
            inputs.next(s % 2);
            return check_sum(ExactSum{inputs.exact(s % 2), inputs.magnitude(s % 2)}, got, depth);
        });
    }
    // A row kernel's: each launch's whole output, read with the size the plan gives and removed once
    // checked (a softmax's are 64 MB each), most of them already while the runner ran (RowLaunches).
    RowLaunches& launches = *rows;
    const SpeedRun checked = checked_launches(job, status, child, work_dir,
                                              [&](int s, std::istream&) -> std::optional<std::string> { return launches.result(s); });
    for (int s = 0; s < job.warmup + job.samples; ++s) fs::remove(speed_output_file(work_dir, s));  // those left unchecked
    return checked;
}

}  // namespace

}  // namespace lab::judge
