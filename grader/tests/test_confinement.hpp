// A confinement for the grader's tests: the command line it is given, in a session of its own (so
// that the judge can stop it and what it started), its output to the log, no limits
// (judge/confinement.hpp). Tests that run a stand-in program through the judge use it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "judge.hpp"

class TestConfinement : public lab::judge::Confinement {
public:
    explicit TestConfinement(std::vector<std::string> argv) : argv_(std::move(argv)) {}
    const std::vector<std::string>& argv() const override { return argv_; }
    lab::process::Options options(const std::string& log, bool append) const override
    {
        lab::process::Options o;
        o.output = log;
        o.append = append;
        o.group = lab::process::Options::Group::session;
        return o;
    }
    std::string limit_reached() const override { return ""; }

private:
    std::vector<std::string> argv_;
};
