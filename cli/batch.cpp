// See batch.hpp.
#include "batch.hpp"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "console.hpp"
#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/test_results.hpp"
#include "lab/text.hpp"

namespace lab::cli {

namespace fs = std::filesystem;

namespace {

// r's counts and failures from its JUnit file (the suites program's --lab_junit); false without one.
bool read_results(RungRun& r)
{
    const auto results = read_junit(r.junit);
    if (!results) return false;
    for (const TestResult& t : *results) {
        switch (t.outcome) {
        case TestOutcome::passed: ++r.passed; break;
        case TestOutcome::skipped: ++r.skipped; break;
        case TestOutcome::left_out: ++r.left_out; break;
        case TestOutcome::failed:
        case TestOutcome::unfinished: {
            ++r.failed;
            // Its first line of words (past gtest's own "Failed" before a message).
            std::string text = t.text.rfind("Failed\n", 0) == 0 ? t.text.substr(7) : t.text;
            r.failures.push_back(t.name + ": " + text.substr(0, text.find('\n')));
            break;
        }
        }
    }
    return true;
}

RungRun run_rung(const Kit& kit, const std::string& preset, const RungInfo& rung, const Batch& batch, Phase& phase,
                 const std::string& before)
{
    RungRun r;
    r.rung = rung.id;
    r.junit = kit.tree(preset) + "/" + batch.tag + "_" + rung.id + ".xml";
    r.log = kit.tree(preset) + "/" + batch.tag + "_" + rung.id + ".log";
    fs::remove(r.junit);  // a result from an earlier run is never read as this one's
    std::vector<std::string> command{kit.program(preset, batch.program + rung.id), "--gtest_color=no", "--lab_junit=" + r.junit};
    if (!batch.sample.empty()) command.push_back("--lab_sample=" + batch.sample);
    if (!batch.filter.empty()) command.push_back("--gtest_filter=" + batch.filter);
    // The program's and its runner's files go to a folder of its own, removed after it whatever happens.
    const std::string scratch = r.log + ".tmp";
    fs::remove_all(scratch);
    fs::create_directories(scratch);
    struct Remove {
        std::string dir;
        ~Remove()
        {
            std::error_code ignored;
            fs::remove_all(dir, ignored);
        }
    } remove{scratch};
    auto environment = batch.environment;
    environment.emplace_back("TMPDIR", scratch);
    phase.update(before + "rung " + rung.id);
    // gtest's own lines: "Running N tests" first, then a line as each test ends, until its summary.
    int total = 0, done = 0;
    bool summary = false;
    const int status = run_logged(command, r.log, [&](const std::string& line) {
        if (summary) return;
        if (line.rfind("[==========] Running ", 0) == 0) total = std::atoi(line.c_str() + 21);
        else if (line.rfind("[==========] ", 0) == 0) summary = true;
        else if (line.rfind("[       OK ] ", 0) == 0 || line.rfind("[  FAILED  ] ", 0) == 0 || line.rfind("[  SKIPPED ] ", 0) == 0)
            phase.update(before + "rung " + rung.id + ": " + std::to_string(++done) + "/" + std::to_string(total) + " cases");
    }, environment);
    stop_if_interrupted("no results of this run are kept");
    if (status != 0 && status != 1 && status != 77)
        throw Failure("the suites program of rung " + rung.id + " stopped (exit status " + std::to_string(status) + "); its log: " + r.log);
    if (!read_results(r)) throw Failure("the suites program of rung " + rung.id + " wrote no results; its log: " + r.log);
    return r;
}

}  // namespace

std::vector<RungRun> run_rungs(const Kit& kit, const std::string& preset, const Batch& batch, const std::string& what)
{
    const auto& rungs = Registry::kit().rungs();
    std::vector<RungRun> runs;
    int passed = 0, failed = 0, skipped = 0, left_out = 0;
    Phase phase(what);
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        const std::string before = "[" + std::to_string(i + 1) + "/" + std::to_string(rungs.size()) + "] ";
        runs.push_back(run_rung(kit, preset, rungs[i], batch, phase, before));
        const RungRun& r = runs.back();
        passed += r.passed, failed += r.failed, skipped += r.skipped, left_out += r.left_out;
    }
    phase.done(what + ", " + std::to_string(rungs.size()) + " rungs: " + std::to_string(passed) + " passed, " +
               std::to_string(failed) + " failed, " + std::to_string(skipped) + " skipped by the kit" +
               (left_out ? ", " + std::to_string(left_out) + " larger ones left out of the sample" : ""));
    return runs;
}

std::string programs_fingerprint(const Kit& kit, const std::string& preset)
{
    std::vector<std::string> files{kit.root + "/rungs.json", kit.root + "/tests/cases.json", kit.root + "/tests/speed.json"};
    // Each rung's program and its runner, which holds the kernel.
    for (const RungInfo& rung : Registry::kit().rungs())
        for (const std::string& program : {suites_program(rung), suites_program(rung) + "-runner"})
            files.push_back(kit.program(preset, program));
    std::string each;  // "FILE HASH" lines: FNV-1a 64 of each file's bytes, as ./lab check stamps a file
    for (const std::string& file : files) {
        const auto bytes = lab::try_read_file(file);
        if (!bytes) return "";  // a program not built yet: nothing to compare with
        each += file + " " + std::to_string(lab::fnv1a(*bytes)) + "\n";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(lab::fnv1a(each)));
    return text;
}

namespace {
std::string stamp_path(const Kit& kit, const std::string& preset) { return kit.tree(preset) + "/run.stamp"; }
}  // namespace

void write_run_stamp(const Kit& kit, const std::string& preset, const std::string& sample)
{
    const std::string fingerprint = programs_fingerprint(kit, preset);
    if (fingerprint.empty()) return;
    std::ofstream(stamp_path(kit, preset)) << "fingerprint " << fingerprint << "\nsample " << (sample.empty() ? "-" : sample)
                                           << "\nat " << static_cast<long long>(std::time(nullptr)) << "\n";
}

void forget_run_stamp(const Kit& kit, const std::string& preset)
{
    std::error_code ignored;
    fs::remove(stamp_path(kit, preset), ignored);
}

std::optional<RunStamp> current_run_stamp(const Kit& kit, const std::string& preset)
{
    std::ifstream in(stamp_path(kit, preset));
    RunStamp stamp;
    for (std::string key, value; in >> key >> value;) {
        if (key == "fingerprint") stamp.fingerprint = value;
        else if (key == "sample") stamp.sample = value == "-" ? "" : value;
        else if (key == "at") stamp.at = std::atoll(value.c_str());
    }
    if (stamp.fingerprint.empty() || stamp.fingerprint != programs_fingerprint(kit, preset)) return std::nullopt;
    for (const RungInfo& rung : Registry::kit().rungs())
        if (!fs::exists(kit.tree(preset) + "/run_" + rung.id + ".xml")) return std::nullopt;
    return stamp;
}

std::vector<RungRun> recorded_runs(const Kit& kit, const std::string& preset)
{
    std::vector<RungRun> runs;
    for (const RungInfo& rung : Registry::kit().rungs()) {
        RungRun r;
        r.rung = rung.id;
        r.junit = kit.tree(preset) + "/run_" + rung.id + ".xml";
        r.log = kit.tree(preset) + "/run_" + rung.id + ".log";
        read_results(r);
        runs.push_back(r);
    }
    return runs;
}

std::vector<std::string> junit_args(const std::vector<RungRun>& runs)
{
    std::vector<std::string> args;
    for (const RungRun& r : runs) args.insert(args.end(), {"--junit", r.junit});
    return args;
}

void say_failures(const Kit& kit, const std::string& preset, const std::vector<RungRun>& runs)
{
    for (const RungRun& r : runs) {
        if (r.failures.empty()) continue;
        const std::string& first = r.failures.front();
        const std::string name = first.substr(0, first.find(": "));
        std::string pattern;  // the name as a regular expression: ctest -R takes one
        for (char c : name) pattern += std::string(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? "" : "\\") + c;
        say("rung " + r.rung + ": " + std::to_string(r.failures.size()) + " case" + (r.failures.size() == 1 ? "" : "s") +
            " failed; the first, " + first + "\n  alone, with all it printed: ctest --test-dir " + kit.tree(preset) + " -R '^" +
            pattern + "$' --output-on-failure\n  every case's verdict: " + r.junit);
    }
}

std::string sample_seed(const std::string& given)
{
    std::uint64_t value = 0;
    if (!given.empty()) {
        const auto seed = lab::parse_seed_text(given);
        if (!seed) throw Failure("--seed needs a number, as a sampled run prints it (0x000000001f2e3d4c), not " + given, 2);
        value = *seed;
    } else {
        value = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ull;
    }
    return lab::seed_text(value);
}

}  // namespace lab::cli
