// Kit tool (lab-case), on the trusted side of the line: starting a rung's test program, watching
// it (its output, bounded; each test's result as the harness appends it; a deadline that each
// result moves on) and saying how it ended. The verdicts are case_runner.hpp's.
#pragma once

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "lab/exit_status.hpp"

namespace case_runner {

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
    // gtest's 1 when one failed. A program this runner stopped the moment it reported a result (a
    // watch said so: the third case stopped at its time limit) did not end by itself: its status is
    // the runner's doing and says nothing against what it reported before, as the grader's judge
    // holds too (Kit.JudgesAgree.Corpus, hostile_endless_kernel).
    bool ending_agrees() const
    {
        if (sticky_restart() || ended_in_a_test() || stopped) return true;
        if (signal || timed_out) return false;
        bool any_failed = false;
        for (const auto& r : results) any_failed |= r.status == "failed";
        return exit_code == (any_failed ? 1 : 0);
    }
    // It ended as the harness ends a program after a sticky CUDA error: right after reporting the
    // failed test that caused it.
    bool sticky_restart() const
    {
        return signal == 0 && !timed_out && exit_code == lab::exit_status::kStickyError && !results.empty() && results.back().sticky &&
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

// Sees each test's result the moment the program reports it; false stops the program there.
using ResultWatch = std::function<bool(const Result&)>;

// Runs `argv` with the results file set, capturing what it prints (bounded). A test that makes no
// progress (no result appended) for `timeout` seconds is stopped, with the program; so is the
// program when `watch` says so.
ChildRun run_child(const std::vector<std::string>& argv, int timeout, const std::string& sanitizer_log = {},
                   const ResultWatch& watch = {});

// A new folder under $TMPDIR (or /tmp) for one run's files; the program stops when none can be made.
std::string temporary_directory();

}  // namespace case_runner
