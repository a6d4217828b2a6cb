// Every rung's cases, one run of its suites program a rung (the judge, tests/support: the verdicts
// ctest's process per case gives, Kit.BatchMatchesCtest), for ./lab run, ./lab test and ./lab
// selftest: one progress line while they run ("[7/12] rung 07_coarsening: 180/224 cases"), then the
// counts, and for each failing rung its first failure and the command that runs that case alone.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kit.hpp"

namespace lab::cli {

struct RungRun {
    std::string rung, junit, log;
    int passed = 0, failed = 0, skipped = 0, left_out = 0;
    std::vector<std::string> failures;  // "NAME: the first line of what it said"
};

struct Batch {
    std::string program = "test_";  // the programs run: PROGRAM + rung id (Kit::program)
    std::string tag = "run";         // their results: build/PRESET/TAG_ID.xml and .log
    std::string sample;              // --lab_sample: the CPU backend's sample of the larger cases
    std::string filter;              // --gtest_filter: the cases to run
    std::vector<std::pair<std::string, std::string>> environment;
};

// Runs every rung in build/PRESET as `batch` says, under one progress line that starts with `what`
// and ends with the counts.
std::vector<RungRun> run_rungs(const Kit& kit, const std::string& preset, const Batch& batch, const std::string& what);

// lab-summary's arguments for these results: --junit FILE for each rung.
std::vector<std::string> junit_args(const std::vector<RungRun>& runs);

// For each rung with a failure: its count, the first one, and the command that runs it alone.
void say_failures(const Kit& kit, const std::string& preset, const std::vector<RungRun>& runs);

// ./lab run's record of a passing run (build/PRESET/run.stamp): what ran, hashed (each rung's suites
// program and its runner, which holds the kernel, rungs.json and the case and speed catalogues), the
// sample's seed and when.
// ./lab selftest takes that run's verdicts rather than running the same programs on the same cases
// again (on 2 cores, two of its ten minutes), and only while every one of those files is unchanged.
struct RunStamp {
    std::string fingerprint, sample;
    long long at = 0;  // seconds since the epoch
};
std::string programs_fingerprint(const Kit& kit, const std::string& preset);
void write_run_stamp(const Kit& kit, const std::string& preset, const std::string& sample);
void forget_run_stamp(const Kit& kit, const std::string& preset);
// The stamp, when there is one and it names what build/PRESET holds now; otherwise nothing.
std::optional<RunStamp> current_run_stamp(const Kit& kit, const std::string& preset);
// ./lab run's results (tag "run"), rung by rung, as run_rungs returns them (counts read from its logs).
std::vector<RungRun> recorded_runs(const Kit& kit, const std::string& preset);

// A fresh seed for the CPU backend's sample, as text ("0x1f2e..."); `given` when set (checked).
std::string sample_seed(const std::string& given);

}  // namespace lab::cli
