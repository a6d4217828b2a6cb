// TRUSTED SIDE. A confinement that runs the runner's command as it is (judge/confinement.hpp): in a
// session of its own, so that the judge can stop it and everything it started, its output to the
// log, no limits; or under a tool's command (compute-sanitizer, the suites' racecheck tests). The
// suites on a student's own machine use it (tests/support/judging.cpp: the student runs their own
// code there anyway), and so do the judge's tests with stand-in runners; the grader never does (its
// sandbox, grader/trusted/sandbox.hpp).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "confinement.hpp"

namespace lab::judge {

class AsItIs : public Confinement {
public:
    // `die_with_parent`: killed when the thread that started it ends (a runner the suites started
    // must not outlive the test program that a time limit stopped).
    explicit AsItIs(std::vector<std::string> argv, bool die_with_parent = false)
        : argv_(std::move(argv)), die_with_parent_(die_with_parent)
    {
    }
    // The runner's command under a tool's (compute-sanitizer's racecheck, for the suites' racecheck
    // tests): `tool` first, then the command.
    AsItIs(std::vector<std::string> tool, const std::vector<std::string>& command, bool die_with_parent)
        : argv_(std::move(tool)), die_with_parent_(die_with_parent)
    {
        argv_.insert(argv_.end(), command.begin(), command.end());
    }
    const std::vector<std::string>& argv() const override { return argv_; }
    lab::process::Options options(const std::string& log, bool append) const override
    {
        lab::process::Options o;
        o.output = log;
        o.append = append;
        o.group = lab::process::Options::Group::session;
        o.null_stdin = true;
        o.die_with_parent = die_with_parent_;
        return o;
    }
    std::string limit_reached() const override { return ""; }

private:
    std::vector<std::string> argv_;
    bool die_with_parent_ = false;
};

// Limits::confine for runners run as they are, under `tool` when one is given.
inline Confine as_it_is(bool die_with_parent = false, std::vector<std::string> tool = {})
{
    return [die_with_parent, tool](const std::vector<std::string>& command, const std::string&, const RunnerLimits&) {
        return std::make_unique<AsItIs>(tool, command, die_with_parent);
    };
}

}  // namespace lab::judge
