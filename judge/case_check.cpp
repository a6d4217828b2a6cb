// Kit tool (lab-case check), on the trusted side of the line: the student's loop (./lab check NN):
// the small cases first, in one process; at the first failures, the first failing case in full and
// nothing larger; once they pass, the larger ones, then (on a GPU) the speed case.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "case_runner.hpp"
#include "lab/json_text.hpp"

namespace case_runner {

namespace {

std::string seconds_since(std::chrono::steady_clock::time_point start)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return text;
}

std::string size_words(std::size_t elements)
{
    int k = 0;
    while ((std::size_t{1} << (k + 1)) <= elements) ++k;
    return (std::size_t{1} << k) == elements ? "2^" + std::to_string(k) : "about 2^" + std::to_string(k);
}

struct CheckOutcome {
    std::string verdict = "correct";  // correct, todos (not finished), failing, fast, slow (GPU)
    std::string first_failing;
    int passed = 0, failed = 0, skipped = 0;
};

void write_progress(const Options& o, const lab::RungInfo& rung, const CheckOutcome& outcome)
{
    if (o.progress.empty()) return;
    const nlohmann::json j{{"rung", rung.id},          {"stamp", o.stamp},
                           {"verdict", outcome.verdict}, {"first_failing", outcome.first_failing},
                           {"passed", outcome.passed},  {"failed", outcome.failed},
                           {"skipped", outcome.skipped}, {"backend", o.backend}};
    std::ofstream(o.progress) << lab::json_text(j, 1) << "\n";
}

// Runs one stage and prints what a student needs of it: nothing but a count when all pass; else the
// first failure in full, a count per failing group, and what was not run because of it.
bool run_stage(const Runner& runner, const std::vector<const lab::PlannedTest*>& tests, const std::string& later,
               CheckOutcome& outcome)
{
    const auto start = std::chrono::steady_clock::now();
    const std::vector<Verdict> verdicts = runner.run_all(tests, nullptr);
    std::map<std::string, std::pair<int, int>> groups;  // group -> failed, of
    std::vector<std::string> group_order, skip_reasons;
    const lab::PlannedTest* first = nullptr;
    const Verdict* first_verdict = nullptr;
    int failed = 0, passed = 0;
    for (std::size_t i = 0; i < tests.size(); ++i) {
        const std::string group = tests[i]->group.empty() ? "launcher" : tests[i]->group;
        if (!groups.count(group)) group_order.push_back(group);
        auto& counts = groups[group];
        ++counts.second;
        switch (verdicts[i].status) {
        case Status::passed: ++outcome.passed, ++passed; break;
        case Status::skipped:
            ++outcome.skipped;
            if (std::find(skip_reasons.begin(), skip_reasons.end(), verdicts[i].reason) == skip_reasons.end())
                skip_reasons.push_back(verdicts[i].reason);
            break;
        case Status::failed:
            ++outcome.failed, ++failed, ++counts.first;
            if (!first) first = tests[i], first_verdict = &verdicts[i];
            break;
        case Status::left_out: break;  // the student's loop samples nothing
        }
    }
    for (const auto& reason : skip_reasons) std::cout << "  skipped: " << reason << "\n";
    if (!first) {
        std::cout << "  " << passed << " passed (" << seconds_since(start) << ")\n";
        return true;
    }
    std::string said = first_verdict->message;
    while (!said.empty() && said.back() == '\n') said.pop_back();
    outcome.verdict = "failing";
    outcome.first_failing = first->name;
    // An unfinished exercise: its TODO list is the whole story.
    if (said.find("is not finished, so its kernel was not run") != std::string::npos) {
        outcome.verdict = "todos";
        std::cout << indented(said);
        return false;
    }
    std::cout << "  " << failed << " of " << tests.size() << " failed (" << seconds_since(start) << "). The first, "
              << first->name << ":\n";
    std::cout << indented(indented(said));
    if (first_verdict->reason != "the test failed.") std::cout << "    " << first_verdict->reason << "\n";
    std::cout << "  Failing, by group of cases:";
    for (const auto& g : group_order)
        if (groups[g].first) std::cout << " " << g << " " << groups[g].first << " of " << groups[g].second << ";";
    std::cout << "\n";
    if (!later.empty()) std::cout << "  Not run yet: " << later << "\n";
    return false;
}

}  // namespace

int mode_check(const Runner& runner, const std::vector<lab::PlannedTest>& plan)
{
    const Options& o = runner.options;
    const lab::RungInfo& rung = runner.rung;
    CheckOutcome outcome;
    if (!o.case_name.empty()) {
        // One case alone, with everything its program printed.
        std::vector<const lab::PlannedTest*> chosen;
        for (const auto& t : plan)
            if (t.kind != lab::TestKind::racecheck &&
                (t.name.size() > o.case_name.size() + 1 &&
                 t.name.compare(t.name.size() - o.case_name.size() - 1, std::string::npos, "/" + o.case_name) == 0))
                chosen.push_back(&t);
        if (chosen.empty()) {
            std::cout << "lab: rung " << rung.id << " has no case " << o.case_name
                      << "; the names are as a failure gives them, such as int_n1856_b256\n";
            return 2;
        }
        std::string output;
        const std::vector<Verdict> verdicts = runner.run_all(chosen, &output);
        std::cout << indented(output);
        int failed = 0;
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            failed += verdicts[i].status == Status::failed;
            std::cout << chosen[i]->name << ": " << verdict_text(verdicts[i]);
        }
        return failed ? 1 : 0;
    }
    std::vector<const lab::PlannedTest*> small, large, speed;
    std::size_t largest = 0;
    for (const auto& t : plan) {
        if (t.kind == lab::TestKind::racecheck) continue;
        if (t.kind == lab::TestKind::speed) speed.push_back(&t);
        else if (t.kind == lab::TestKind::kernel && t.work > lab::kSmallWork) large.push_back(&t), largest = std::max(largest, t.elements);
        else small.push_back(&t);
    }
    const auto next_rung = [&]() -> const lab::RungInfo* {
        const auto& rungs = lab::Registry::kit().rungs();
        for (std::size_t i = 0; i + 1 < rungs.size(); ++i)
            if (rungs[i].id == rung.id) return &rungs[i + 1];
        return nullptr;
    };
    const std::string larger = std::to_string(large.size()) + " larger cases (up to " + size_words(largest) + " elements)";
    std::cout << "rung " << rung.id << ": the " << small.size() << " small cases first\n";
    if (!run_stage(runner, small, large.empty() ? "" : "the " + larger + "; they run once every small case passes.", outcome)) {
        write_progress(o, rung, outcome);
        return 1;
    }
    if (!large.empty()) {
        std::cout << "rung " << rung.id << ": now the " << larger
                  << (o.backend == "cpu" ? " (most of a minute on the CPU backend)" : "") << "\n" << std::flush;
        if (!run_stage(runner, large, "", outcome)) {
            write_progress(o, rung, outcome);
            return 1;
        }
    }
    if (!speed.empty() && o.backend == "cuda") {
        std::cout << "rung " << rung.id << ": correct; now its speed on this GPU\n";
        std::string output;
        const Verdict v = runner.run_all(speed, &output).front();
        std::istringstream lines(output);
        for (std::string line; std::getline(lines, line);)
            if (line.find("GB/s") != std::string::npos || line.rfind("thresholds:", 0) == 0) std::cout << "  " << line << "\n";
        if (v.status == Status::failed) {
            std::cout << indented(v.message) << "  " << v.reason << "\n";
            outcome.verdict = "slow";
        } else if (v.status == Status::passed) {
            outcome.verdict = "fast";
        } else {
            std::cout << "  skipped: " << v.reason << "\n";
        }
    }
    std::cout << "rung " << rung.id << " is correct: " << outcome.passed << " cases pass";
    if (outcome.skipped) std::cout << ", " << outcome.skipped << " skipped (above)";
    std::cout << (outcome.verdict == "fast" ? ", and it is fast enough" : outcome.verdict == "slow" ? ", but not fast enough yet" : "")
              << ".\n";
    if (o.backend == "cpu" && !speed.empty())
        std::cout << "Speed is measured on a GPU only: ./lab bench " << rung.number << " there.\n";
    if (const lab::RungInfo* next = next_rung())
        std::cout << "Next: rung " << next->id << " (" << next->title << "): ./lab check " << next->number
                  << "; the idea is in handouts/" << next->id << ".md\n";
    else
        std::cout << "That was the last rung: ./lab status shows the whole ladder.\n";
    write_progress(o, rung, outcome);
    return outcome.verdict == "slow" ? 1 : 0;
}

// Arguments in ctest's bracket syntax, which needs no escaping.
}  // namespace case_runner
