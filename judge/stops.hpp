// TRUSTED SIDE. Internal to the judge: the hang rule's count, shared by the runners of one rung's
// cases (checker.cpp's run_all and run_and_check).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <iterator>
#include <mutex>
#include <optional>
#include <set>

namespace lab::judge {

// The cases of a rung stopped at a limit, shared by the runners that run its cases side by side
// (Limits::runners), by the jobs' places in the rung's order: the hang rule gives up every job after
// the rule's number of stops in that order, as one runner running them in turn would, so the verdicts
// are the same however many runners. A runner gives up its own jobs once the rule's stops lie below
// its next one; jobs another runner ran past that point are given up afterwards (run_and_check).
class Stops {
public:
    Stops(std::size_t runners, int rule) : runners(runners), rule(std::max(rule, 1)) {}
    const std::size_t runners;  // runner r's job j is the rung's job j * runners + r
    const int rule;             // Limits::hung_before_giving_up
    void stopped(std::size_t job)
    {
        const std::lock_guard<std::mutex> held(lock_);
        at_.insert(job);
    }
    // Whether the rule's stops lie below the rung's job `job`.
    bool enough_below(std::size_t job) const
    {
        const std::lock_guard<std::mutex> held(lock_);
        return std::distance(at_.begin(), at_.lower_bound(job)) >= rule;
    }
    // The rung's job after which every job is given up, once the rule's number of stops are in.
    std::optional<std::size_t> last_kept() const
    {
        const std::lock_guard<std::mutex> held(lock_);
        if (static_cast<int>(at_.size()) < rule) return std::nullopt;
        return *std::next(at_.begin(), rule - 1);
    }
    std::atomic<bool> only_time{true};  // each stop at the time limit (none at the memory or process limit)
    std::atomic<bool> abort{false};     // another runner's run failed: stop too

private:
    mutable std::mutex lock_;
    std::set<std::size_t> at_;
};

}  // namespace lab::judge
