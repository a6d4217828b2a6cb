// The student's loop (./lab check NN), on a rung built by check.cpp: its suites program (the judge:
// tests/support) run in stages, each one run of it on those tests, what each test came to read from
// its results (lab/test_results.hpp): the small cases first; at the first failures, the first
// failing case in full and nothing larger; once they pass, the larger ones, then (on a GPU) the
// speed case.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "console.hpp"
#include "lab/json_text.hpp"
#include "lab/rung_tests.hpp"
#include "lab/text.hpp"
#include "loop.hpp"

namespace lab::cli {

namespace {

std::string indented(const std::string& text)
{
    std::string out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
    return out;
}

// Without its last line breaks.
std::string trimmed(std::string text)
{
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

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

struct LoopOutcome {
    std::string verdict = "correct";  // correct, todos (not finished), failing, fast, slow (GPU)
    std::string first_failing;
    int passed = 0, failed = 0, skipped = 0;
    int left_out = 0;  // larger cases the CPU backend's sample did not run (never counted as passed)
    std::vector<std::string> lesson_gaps;  // where a correct kernel misses the rung's lesson (Loop::lesson_gaps)
};

void write_progress(const Loop& o, const LoopOutcome& outcome)
{
    if (o.progress.empty()) return;
    const nlohmann::json j{{"rung", o.rung->id},          {"stamp", o.stamp},
                           {"verdict", outcome.verdict}, {"first_failing", outcome.first_failing},
                           {"passed", outcome.passed},  {"failed", outcome.failed},
                           {"skipped", outcome.skipped}, {"left_out", outcome.left_out},
                           {"backend", o.cpu ? "cpu" : "cuda"},   {"lesson_gaps", outcome.lesson_gaps}};
    std::ofstream(o.progress) << lab::json_text(j, 1) << "\n";
}

// One run of the rung's program on `tests`: each one's result, in their order, and what the program
// printed in `printed`. Its files go to a folder of its own, removed after it whatever happens.
std::vector<TestResult> run_tests(const Loop& o, const std::vector<const RungTest*>& tests, std::string* printed = nullptr)
{
    const std::string scratch = o.log + ".tmp";
    std::filesystem::remove_all(scratch);
    std::filesystem::create_directories(scratch);
    struct Remove {
        std::string dir;
        ~Remove()
        {
            std::error_code ignored;
            std::filesystem::remove_all(dir, ignored);
        }
    } remove{scratch};
    std::string filter;
    for (const RungTest* t : tests) filter += (filter.empty() ? "" : ":") + t->name;
    const std::string junit = scratch + "/results.xml";
    const int status = run_logged({o.program, "--gtest_filter=" + filter, "--gtest_color=no", "--lab_junit=" + junit}, o.log, {},
                                  {{"TMPDIR", scratch}});
    stop_if_interrupted("nothing of this check is kept");
    const auto read = read_junit(junit);
    if (!read || (status != 0 && status != 1 && status != 77))
        throw Failure("the suites program of rung " + o.rung->id + " stopped (exit status " + std::to_string(status) +
                      ") before it said what became of its tests; all it printed: " + o.log);
    if (printed) *printed = read_file(o.log);
    std::map<std::string, TestResult> by_name;
    for (const TestResult& r : *read) by_name[r.name] = r;
    std::vector<TestResult> results;
    for (const RungTest* t : tests) {
        const auto found = by_name.find(t->name);
        results.push_back(found != by_name.end() ? found->second
                                                 : TestResult{t->name, TestOutcome::failed, "the suites program gave no result for it"});
    }
    return results;
}

// Runs one stage and prints what a student needs of it: nothing but a count when all pass; else the
// first failure in full, a count per failing group, and what was not run because of it.
bool run_stage(const Loop& o, std::ostream& out, const std::vector<const RungTest*>& tests, const std::string& later,
               LoopOutcome& outcome)
{
    const auto start = std::chrono::steady_clock::now();
    const std::vector<TestResult> verdicts = run_tests(o, tests);
    std::map<std::string, std::pair<int, int>> groups;  // group -> failed, of
    std::vector<std::string> group_order, skip_reasons;
    const RungTest* first = nullptr;
    const TestResult* first_verdict = nullptr;
    int failed = 0, passed = 0;
    for (std::size_t i = 0; i < tests.size(); ++i) {
        const std::string group = tests[i]->group.empty() ? "launcher" : tests[i]->group;
        if (!groups.count(group)) group_order.push_back(group);
        auto& counts = groups[group];
        ++counts.second;
        switch (verdicts[i].outcome) {
        case TestOutcome::passed: ++outcome.passed, ++passed; break;
        case TestOutcome::skipped:
            ++outcome.skipped;
            if (std::find(skip_reasons.begin(), skip_reasons.end(), verdicts[i].text) == skip_reasons.end())
                skip_reasons.push_back(verdicts[i].text);
            break;
        case TestOutcome::failed:
        case TestOutcome::unfinished:
            ++outcome.failed, ++failed, ++counts.first;
            if (!first) first = tests[i], first_verdict = &verdicts[i];
            break;
        case TestOutcome::left_out: break;  // the student's loop samples nothing
        }
    }
    for (const auto& reason : skip_reasons) out << "  skipped: " << trimmed(reason) << "\n";
    if (!first) {
        // Shown now: what follows (the nvcc check, the larger cases) takes seconds more.
        out << "  " << passed << " passed (" << seconds_since(start) << ")\n" << std::flush;
        return true;
    }
    const std::string said = trimmed(first_verdict->text);
    outcome.verdict = "failing";
    outcome.first_failing = first->name;
    // An unfinished exercise: its TODO list is the whole story.
    if (first_verdict->outcome == TestOutcome::unfinished) {
        outcome.verdict = "todos";
        out << indented(said) << std::flush;
        return false;
    }
    out << "  " << failed << " of " << tests.size() << " failed (" << seconds_since(start) << "). The first, "
        << first->name << ":\n";
    out << indented(indented(said));
    out << "  Failing, by group of cases:";
    for (const auto& g : group_order)
        if (groups[g].first) out << " " << g << " " << groups[g].first << " of " << groups[g].second << ";";
    out << "\n";
    if (!later.empty()) out << "  Not run yet: " << later << "\n";
    out << std::flush;
    return false;
}

// One case alone (--case NAME), with everything its program printed but GoogleTest's framing.
int one_case(const Loop& o, std::ostream& out, const std::vector<RungTest>& plan)
{
    std::vector<const RungTest*> chosen;
    for (const auto& t : plan)
        if (t.kind != TestKind::racecheck && t.name.size() > o.case_name.size() + 1 &&
            t.name.compare(t.name.size() - o.case_name.size() - 1, std::string::npos, "/" + o.case_name) == 0)
            chosen.push_back(&t);
    if (chosen.empty()) {
        out << "lab: rung " << o.rung->id << " has no case " << o.case_name
            << "; the names are as a failure gives them, such as int_n1856_b256\n";
        return 2;
    }
    std::string printed;
    const std::vector<TestResult> verdicts = run_tests(o, chosen, &printed);
    out << indented(without_gtest_framing(printed));
    int failed = 0;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        const TestResult& v = verdicts[i];
        failed += is_failure(v.outcome);
        out << chosen[i]->name << ": " << (is_failure(v.outcome) ? "FAILED" : outcome_name(v.outcome))
            << (v.outcome == TestOutcome::skipped ? ": " + trimmed(v.text) : "") << "\n";
    }
    return failed ? 1 : 0;
}

}  // namespace

int student_loop(const Loop& o, std::ostream& out)
{
    const RungInfo& rung = *o.rung;
    const std::vector<RungTest> plan = rung_tests(rung, false);
    if (!o.case_name.empty()) return one_case(o, out, plan);
    LoopOutcome outcome;
    std::vector<const RungTest*> small, large, speed;
    std::size_t largest = 0;
    for (const auto& t : plan) {
        if (t.kind == TestKind::speed) speed.push_back(&t);
        else if (t.kind == TestKind::kernel && t.work > kSmallWork) large.push_back(&t), largest = std::max(largest, t.elements);
        else small.push_back(&t);
    }
    const auto next_rung = [&]() -> const RungInfo* {
        const auto& rungs = Registry::kit().rungs();
        for (std::size_t i = 0; i + 1 < rungs.size(); ++i)
            if (rungs[i].id == rung.id) return &rungs[i + 1];
        return nullptr;
    };
    // On the CPU backend the larger cases take most of a minute: the loop runs a sample (lab::cpu_sample),
    // as ./lab run does, and says which seed drew them and which command runs them all.
    std::size_t all_large = large.size();
    if (!o.sample.empty() && !large.empty()) {
        const std::vector<bool> runs = cpu_sample(plan, *lab::parse_seed_text(o.sample));
        std::vector<const RungTest*> kept;
        for (const RungTest* t : large)
            if (runs[static_cast<std::size_t>(t - plan.data())]) kept.push_back(t);
        outcome.left_out = static_cast<int>(large.size() - kept.size());
        large = kept;
    }
    const std::string larger = outcome.left_out == 0
                                   ? std::to_string(large.size()) + " larger cases (up to " + size_words(largest) + " elements)"
                                   : std::to_string(large.size()) + " of its " + std::to_string(all_large) +
                                         " larger cases (up to " + size_words(largest) + " elements), " + lab::kCpuSampleWords;
    out << "rung " << rung.id << ": the " << small.size() << " small cases first\n" << std::flush;
    if (!run_stage(o, out, small, large.empty() ? "" : "the " + larger + "; they run once every small case passes.", outcome)) {
        write_progress(o, outcome);
        return 1;
    }
    // The nvcc check (one core's work for a few seconds) beside the larger cases; a larger case
    // that fails is the verdict, else nvcc's refusal is (get() throws it).
    std::future<void> beside;
    if (o.beside_larger) beside = std::async(std::launch::async, o.beside_larger);
    if (!large.empty()) {
        out << "rung " << rung.id << ": now the " << larger
            << (outcome.left_out ? " (drawn by seed " + o.sample + ")" : o.cpu ? " (up to half a minute on the CPU backend)" : "")
            << "\n" << std::flush;
        if (!run_stage(o, out, large, "", outcome)) {
            if (beside.valid()) beside.wait();
            write_progress(o, outcome);
            return 1;
        }
    }
    if (beside.valid()) beside.get();
    if (!speed.empty() && !o.cpu) {
        out << "rung " << rung.id << ": correct; now its speed on this GPU\n" << std::flush;
        bool slow = false, fast = true;
        for (const TestResult& v : run_tests(o, speed)) {
            // A speed test says its figures (GB/s, the thresholds) whether it passes or not.
            if (v.outcome == TestOutcome::skipped) out << "  skipped: " << trimmed(v.text) << "\n";
            else out << indented(trimmed(v.text));
            slow = slow || is_failure(v.outcome);
            fast = fast && v.outcome == TestOutcome::passed;
        }
        if (slow) outcome.verdict = "slow";
        else if (fast) outcome.verdict = "fast";
    }
    out << "rung " << rung.id << " is correct: " << outcome.passed << " cases pass";
    if (outcome.skipped) out << ", " << outcome.skipped << " skipped (above)";
    if (outcome.left_out) out << ", " << outcome.left_out << " larger ones left out";
    out << (outcome.verdict == "fast" ? ", and it is fast enough" : outcome.verdict == "slow" ? ", but not fast enough yet" : "")
        << ".\n";
    if (outcome.left_out)
        out << "The CPU backend ran of the larger cases " << lab::kCpuSampleWords << ": ./lab check " << rung.number << " --seed " << o.sample
            << " runs the same ones again, ./lab test " << rung.number << " every one.\n";
    if (o.cpu && !speed.empty()) out << "Speed is measured on a GPU only: ./lab bench " << rung.number << " there.\n";
    if (o.lesson_gaps) {
        out << "rung " << rung.id << ": measuring your kernel beside the reference (./lab explain " << rung.number
            << "; a few seconds)\n" << std::flush;
        bool measured = false;
        try {
            outcome.lesson_gaps = o.lesson_gaps();
            measured = true;
        } catch (const std::exception&) {
            // The measurement is a hint: a failure to make it claims nothing (./lab explain says why).
        }
        if (!measured) {
            out << "The measurement failed; ./lab explain " << rung.number << " says why.\n";
        } else if (outcome.lesson_gaps.empty()) {
            out << "It does what rung " << rung.number << " teaches.\n";
        } else {
            out << "Correct, but it misses what rung " << rung.number << " teaches:\n";
            for (const std::string& gap : outcome.lesson_gaps) out << "  - " << gap << "\n";
            out << "./lab explain " << rung.number << " shows where, line by line.\n";
        }
    }
    if (const RungInfo* next = next_rung())
        out << "Next: rung " << next->id << " (" << next->title << "): ./lab check " << next->number
            << "; the idea is in handouts/" << next->id << ".md\n";
    else
        out << "That was the last rung: ./lab status shows the whole ladder.\n";
    write_progress(o, outcome);
    out << std::flush;
    return outcome.verdict == "slow" ? 1 : 0;
}

}  // namespace lab::cli
