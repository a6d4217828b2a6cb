// Reads the JUnit file ctest writes (ctest --output-junit) and prints one line per rung: how its
// kernel cases and its other tests went, and the bandwidth lab-bench measured, if given. A test
// counts as skipped only when the kit skipped it (ctest's SKIP_RETURN_CODE, and the kit's own
// "lab: skipped:" line at the start of its output, lab/test_results.hpp); a test that did not run for
// any other reason (a missing program, say) counts as failed. A case a sampled run left out (the CPU
// backend's sample of the larger cases, ./lab run) is counted as left out.
// With --expect it also decides whether the run is what the kit's self-test requires:
//   pass        nothing failed (skipped is fine: no GPU)
//   todos       every kernel case of every rung failed (an untouched skeleton) but those the kit
//               skipped here (GPU-only cases on the CPU backend), all else passed
//   stubs       every rung has at least one failing kernel case (the stubs give wrong answers)
// --rung limits the table to that rung (repeat it for several); --failures N prints what the first N failing tests said.
// It never loads a student's code: it reads files only.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "lab/registry.hpp"
#include "lab/test_results.hpp"
#include "lab/text.hpp"

namespace {

struct Counts {
    int passed = 0, failed = 0, skipped = 0, left_out = 0;
    int total() const { return passed + failed + skipped + left_out; }
};

struct RungResults {
    Counts kernel, other;
    bool not_built = false;
    std::string bench;  // "220.4" or "wrong"
};

struct TestCase {
    std::string name, status, output, skip_message;
};

// The <testcase> elements of a ctest JUnit file: name, status (run, fail, notrun) and output.
std::string read_junit(const std::string& path)
{
    auto text = lab::try_read_file(path);
    if (!text) throw std::runtime_error("cannot read " + path);
    return *text;
}

std::vector<TestCase> parse_junit(const std::string& xml)
{
    std::vector<TestCase> cases;
    for (auto at = xml.find("<testcase "); at != std::string::npos; at = xml.find("<testcase ", at + 1)) {
        const auto tag_end = xml.find('>', at);
        const std::string tag = xml.substr(at, tag_end - at);
        TestCase c{lab::xml_attribute(tag, "name"), lab::xml_attribute(tag, "status"), {}, {}};
        const auto end = tag.back() == '/' ? tag_end : xml.find("</testcase>", tag_end);
        const auto skipped = xml.find("<skipped ", tag_end);
        if (skipped != std::string::npos && skipped < end)
            c.skip_message = lab::xml_attribute(xml.substr(skipped, xml.find('>', skipped) - skipped), "message");
        const auto out = xml.find("<system-out>", tag_end);
        if (out != std::string::npos && out < end) {
            const auto out_start = out + std::string("<system-out>").size();
            c.output = lab::xml_unescaped(xml.substr(out_start, xml.find("</system-out>", out_start) - out_start));
        }
        cases.push_back(std::move(c));
    }
    return cases;
}

// What gtest said between "[ RUN ]" and "[  FAILED  ]"; or the whole output (a suites program's
// results: what the test said) when those are absent.
std::string failure_excerpt(const std::string& output)
{
    const auto run = output.find("[ RUN      ]");
    const auto failed = output.find("[  FAILED  ]");
    if (run == std::string::npos || failed == std::string::npos || failed < run) return output;
    const auto start = output.find('\n', run) + 1;
    return output.substr(start, failed - start);
}

std::string counts_text(const Counts& c)
{
    if (c.total() == 0) return "none";
    std::string text;
    auto add = [&](int n, const char* what) {
        if (n) text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    };
    add(c.passed, "passed");
    add(c.failed, "failed");
    add(c.skipped, "skipped");
    add(c.left_out, "left out");
    return text;
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"lab-summary: the rungs' results from the suites' JUnit files, as a table"};
    std::vector<std::string> junits, rungs;
    std::string bench, expect, test_dir;
    int show_failures = 0;
    app.add_option("--junit", junits, "a JUnit file of the suites' results (repeatable)")->required();
    app.add_option("--bench", bench, "the benchmark's CSV, for its column");
    app.add_option("--expect", expect, "what every rung's cases must do: pass (the reference), todos or stubs (the exercises)")
        ->check(CLI::IsMember({"pass", "todos", "stubs"}));
    app.add_option("--rung", rungs, "judge these rungs only (repeatable; the others are not reported missing)");
    app.add_option("--failures", show_failures, "show this many failures in full")->check(CLI::NonNegativeNumber);
    app.add_option("--test-dir", test_dir,
                   "the build tree a failure is run again in, as the failures shown say (default: the first JUnit "
                   "file's folder, where ./lab writes them)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return e.get_exit_code() == 0 ? 0 : 2;
    }
    const std::set<std::string> only_rungs(rungs.begin(), rungs.end());
    try {
        const auto& registry = lab::Registry::kit();
        std::map<std::string, RungResults> results;  // by rung number
        Counts kit;
        std::vector<TestCase> failures;
        std::vector<std::pair<std::string, int>> skip_reasons;  // why the kit skipped rungs' cases, and how many
        std::vector<std::pair<std::string, int>> left_out_reasons;
        // Every rung test runs the rung's kernel except the Launcher ones, which check the kit's plan.
        static const std::regex rung_test(R"(^Ex(\d\d)/(\w+)\.)"), not_built(R"(^test_(\d\d)_\w*_NOT_BUILT)");
        std::vector<TestCase> tests;
        for (const auto& junit : junits)
            for (auto& test : parse_junit(read_junit(junit))) tests.push_back(std::move(test));
        for (const TestCase& test : tests) {
            std::smatch m;
            Counts* counts = &kit;
            if (std::regex_search(test.name, m, rung_test))
                counts = m[2] != "Launcher" ? &results[m[1]].kernel : &results[m[1]].other;
            else if (std::regex_search(test.name, m, not_built)) {
                results[m[1]].not_built = true;
                counts = &results[m[1]].other;
            }
            const bool kit_skip = test.status == "notrun" && test.skip_message == "SKIP_RETURN_CODE=77" &&
                                  test.output.rfind(lab::kSkippedLine, 0) == 0;
            // Left out of a sampled run by the suites program itself (ctest never writes this message).
            const bool left_out = test.status == "notrun" && test.skip_message == "LEFT_OUT" &&
                                  test.output.rfind(lab::kLeftOutLine, 0) == 0 && counts != &kit;
            if (test.status == "run") ++counts->passed;
            else if (left_out) {
                ++counts->left_out;
                const std::size_t from = std::string(lab::kLeftOutLine).size();
                const std::string reason = test.output.substr(from, test.output.find('\n') - from);
                auto seen = std::find_if(left_out_reasons.begin(), left_out_reasons.end(), [&](const auto& r) { return r.first == reason; });
                if (seen == left_out_reasons.end()) left_out_reasons.emplace_back(reason, 1);
                else ++seen->second;
            }
            else if (kit_skip) {
                ++counts->skipped;
                if (counts == &kit) continue;  // the rungs' cases say why; the kit's own tests only count
                const std::size_t from = std::string(lab::kSkippedLine).size();
                const std::string reason = test.output.substr(from, test.output.find('\n') - from);
                auto seen = std::find_if(skip_reasons.begin(), skip_reasons.end(), [&](const auto& r) { return r.first == reason; });
                if (seen == skip_reasons.end()) skip_reasons.emplace_back(reason, 1);
                else ++seen->second;
            }
            else {
                ++counts->failed;
                TestCase failure = test;
                if (test.status == "notrun")
                    failure.output = "did not run (" + test.skip_message + "), and only the kit may skip "
                                     "a test: counted as failed.\n" + test.output;
                failures.push_back(failure);
            }
        }
        std::string thresholds;  // lab-bench's first line: whether this GPU's speed tests use its own calibration
        if (!bench.empty()) {
            std::ifstream lines(bench);
            std::string id, verdict, gbps;
            while (lines >> id >> verdict) {
                std::getline(lines, gbps);
                if (id == "#thresholds") {
                    const std::string gpu = gbps.substr(gbps.find_first_not_of(" \t"));
                    thresholds = verdict == "calibrated"
                                     ? "speed thresholds: calibrated on this GPU, " + gpu + " (tests/speed.json)"
                                     : "speed thresholds: the default thresholds, since " + gpu +
                                           " has no calibration in tests/speed.json (./lab calibrate adds one)";
                    continue;
                }
                std::istringstream fields(gbps);
                fields >> gbps;
                if (const auto* rung = registry.find(id)) results[rung->number].bench = verdict == "ok" ? gbps : verdict;
            }
        }

        // Results of the kit's own tests alone (./lab selftest's ctest run): no table of rungs to judge.
        const bool rungs_given = !results.empty();
        if (rungs_given) std::printf("%-20s %-40s %-12s %s\n", "Rung", "Kernel cases", "Other tests", bench.empty() ? "" : "GB/s");
        std::vector<std::string> problems;
        for (const auto& rung : registry.rungs()) {
            if (!rungs_given) break;
            if (!only_rungs.empty() && !only_rungs.count(rung.id)) continue;
            const RungResults& r = results[rung.number];
            std::string gbps = r.bench;
            if (!bench.empty() && gbps.empty()) gbps = "-";
            else if (gbps != "wrong" && !gbps.empty()) gbps = std::to_string(static_cast<int>(std::stod(gbps) + 0.5));
            std::printf("%-20s %-40s %-12s %s\n", rung.id.c_str(),
                        (r.not_built ? "did not build" : counts_text(r.kernel)).c_str(), counts_text(r.other).c_str(),
                        gbps.c_str());
            const std::string who = "rung " + rung.id + ": ";
            if (r.not_built) problems.push_back(who + "its test program did not build");
            else if (r.kernel.total() == 0) problems.push_back(who + "no kernel cases ran");
            if (expect == "pass" && (r.kernel.failed || r.other.failed)) problems.push_back(who + "tests failed");
            if (expect == "todos" && (r.kernel.passed || r.kernel.failed == 0))
                problems.push_back(who + "an untouched exercise should fail every kernel case");
            if (expect == "todos" && r.other.failed) problems.push_back(who + "tests outside the kernel cases failed");
            if (expect == "stubs" && r.kernel.failed == 0)
                problems.push_back(who + "its stubs pass every case: a skeleton would pass without any work");
            if (r.bench == "wrong") problems.push_back(who + "lab-bench got a wrong answer");
        }
        if (kit.total()) std::printf("%-20s %-40s\n", "kit self-tests", counts_text(kit).c_str());
        for (const auto& [reason, count] : skip_reasons)
            std::printf("skipped by the kit (%d): %s\n", count, reason.c_str());
        for (const auto& [reason, count] : left_out_reasons) std::printf("left out (%d): %s\n", count, reason.c_str());
        if (!thresholds.empty()) std::printf("%s\n", thresholds.c_str());
        if (kit.failed) problems.push_back("the kit's own tests failed");
        for (int i = 0; i < show_failures && i < static_cast<int>(failures.size()); ++i)
            std::printf("\nFirst failure: %s\n%s\nRun it alone with its full output:\n  ctest --test-dir %s -R '%s' "
                        "--output-on-failure\n",
                        failures[i].name.c_str(), failure_excerpt(failures[i].output).c_str(),
                        (test_dir.empty() ? junits.front().substr(0, junits.front().rfind('/')) : test_dir).c_str(),
                        failures[i].name.c_str());
        if (expect.empty()) return failures.empty() ? 0 : 1;
        for (const auto& p : problems) std::fprintf(stderr, "FAIL: %s\n", p.c_str());
        if (!problems.empty() && expect == "pass")
            for (std::size_t i = 0; i < failures.size() && i < 10; ++i)
                std::fprintf(stderr, "  failed: %s\n", failures[i].name.c_str());
        return problems.empty() ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "lab-summary: " << e.what() << '\n';
        return 2;
    }
}
