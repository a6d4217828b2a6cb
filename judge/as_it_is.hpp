// TRUSTED SIDE. A confinement that runs the runner's command as it is (judge/confinement.hpp): in a
// session of its own, so that the judge can stop it and everything it started, its output to the
// log, no limits. The suites on a student's own machine use it (tests/support/suite.cpp: the student
// runs their own code there anyway), and so do the judge's tests with stand-in runners; the grader
// never does (its sandbox, grader/trusted/sandbox.hpp).
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

// Limits::confine for runners run as they are.
inline Confine as_it_is(bool die_with_parent = false)
{
    return [die_with_parent](const std::vector<std::string>& command, const std::string&, const RunnerLimits&) {
        return std::make_unique<AsItIs>(command, die_with_parent);
    };
}

}  // namespace lab::judge
