// Every rung's cases through the kit's case runner, one process per rung (lab-case batch: the
// verdicts ctest's process per case gives, Kit.BatchMatchesCtest), for ./lab run and ./lab selftest:
// one progress line while they run ("[7/12] rung 07_coarsening: 180/224 cases"), then the counts,
// and for each failing rung its first failure and the command that runs that case alone.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kit.hpp"

namespace lab::cli {

struct RungRun {
    std::string rung, junit, log;
    int passed = 0, failed = 0, skipped = 0, left_out = 0;
    std::vector<std::string> failures;  // "NAME: why", as lab-case batch prints them
};

struct Batch {
    std::string program = "test_";  // the programs run: PROGRAM + rung id, in build/PRESET/tests
    std::string tag = "run";         // their results: build/PRESET/TAG_ID.xml and .log
    std::string sample;              // lab-case batch --sample: the CPU backend's sample of larger cases
    std::string filter;              // lab-case batch --filter
    std::string sanitizer;           // lab-case batch --sanitizer (racecheck on a GPU)
    std::vector<std::pair<std::string, std::string>> environment;
};

// Runs every rung in build/PRESET as `batch` says, under one progress line that starts with `what`
// and ends with the counts.
std::vector<RungRun> run_rungs(const Kit& kit, const std::string& preset, const Batch& batch, const std::string& what);

// lab-summary's arguments for these results: --junit FILE for each rung.
std::vector<std::string> junit_args(const std::vector<RungRun>& runs);

// For each rung with a failure: its count, the first one, and the command that runs it alone.
void say_failures(const Kit& kit, const std::string& preset, const std::vector<RungRun>& runs);

// A fresh seed for the CPU backend's sample, as text ("0x1f2e..."); `given` when set (checked).
std::string sample_seed(const std::string& given);

}  // namespace lab::cli
