// Kit tool, on the trusted side of the line: runs a rung's test program in a child process, and
// decides each test's verdict itself. The program holds no student code (the runner beside it, which
// it starts, launches the kernel: tests/support/suite.cpp), but this runner trusts it no further for
// that: a verdict never comes from what the program prints, nor from its exit status alone
// (Kit.CaseRunnerDistrustsItsProgram holds it to this with stand-ins that lie):
//   - the list of tests comes from the kit's plan (lab/suite_plan.hpp), not from the program;
//   - each test's result comes from the results file the harness appends to as the test ends
//     (tests/support/main.cpp), and must agree with how the program ended: a test that reported
//     nothing (the program exited early, crashed or hung) fails, and so does one whose program's
//     exit status contradicts its result (a failure followed by exit status 0, say);
//   - only the kit skips: a test is skipped for a reason this runner checks for itself (the CPU
//     backend and a GPU-only test, no usable GPU, too little device memory); a test the program
//     reports as skipped for any other reason fails;
//   - what the program prints is passed on indented, so no line it prints can pass for one of this
//     runner's own lines, which start at the margin with "lab-case:".
//
//   lab-case run    --rung ID --exe PROGRAM --backend cpu|cuda --test NAME [--sanitizer PATH] [--timeout S]
//       one test, for ctest: exit 0 passed, 1 failed, 77 skipped by the kit
//   lab-case batch  --rung ID --exe PROGRAM --backend cpu|cuda [--sanitizer PATH] [--timeout S] [--junit FILE]
//                   [--sample SEED] [--filter GTEST_FILTER] [--progress-lines]
//       every test of the rung in one process (one CUDA context), a fresh process after a crash or
//       a sticky CUDA error; after three cases stopped at a time limit the rest fail at once. Prints
//       a line per failure and the counts, writes a JUnit file. --sample: of the larger kernel cases,
//       one per shape, picked by SEED (lab::cpu_sample; the others are left out, and said so);
//       --filter: only the tests it selects (gtest's syntax), the others not even listed.
//       --progress-lines: a line "lab-case: progress DONE/TOTAL" as cases end (for ./lab run)
//   lab-case catch  --rung ID --exe PROGRAM --backend cpu|cuda --filter GTEST_FILTER --expect REGEX
//                   --name NAME --mistake TEXT [--racecheck SANITIZER] [--timeout S]
//       a planted mistake (tests/mutants.json): exit 0 when its suite fails it and says EXPECT
//   lab-case ctest  --rung ID --exe PROGRAM --backend cpu|cuda --out FILE [--sanitizer PATH] [--timeout S]
//       writes the ctest file that declares the rung's tests, each run through `lab-case run`
//   lab-case check  --rung ID --exe PROGRAM --backend cpu|cuda [--case NAME] [--progress FILE --stamp TEXT]
//       the student's loop (./lab check NN): the small cases first, in one process; at the first
//       failures, the first failing case in full and nothing larger; once they pass, the larger ones,
//       then (on a GPU) the speed case. With --case, that case alone, with all it printed. --progress
//       writes the verdict as JSON for ./lab status, with TEXT (the exercise file's fingerprint)
//   lab-case gpu    PROGRAM [ARGS...]
//       a kit test program that holds no student code and needs a GPU (the construct corpus under
//       CUDA): skipped by this runner (exit 77) when no GPU is usable, else PROGRAM runs as given
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "case_runner.hpp"
#include "lab/cuda.hpp"
#include "lab/device.hpp"
#include "lab/exit_status.hpp"
#include "lab/json_text.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/sanitizer_log.hpp"
#include "lab/suite_plan.hpp"
#include "lab/text.hpp"

namespace case_runner {

std::string indented(const std::string& text)
{
    std::string out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
    return out;
}

const lab::PlannedTest* find_test(const std::vector<lab::PlannedTest>& plan, const std::string& name)
{
    for (const auto& t : plan)
        if (t.name == name) return &t;
    return nullptr;
}

namespace {

bool glob(const char* pattern, const char* text)
{
    if (*pattern == '\0') return *text == '\0';
    if (*pattern == '*') return glob(pattern + 1, text) || (*text && glob(pattern, text + 1));
    return *text && (*pattern == '?' || *pattern == *text) && glob(pattern + 1, text + 1);
}

bool any_glob(const std::string& patterns, const std::string& name)
{
    std::istringstream parts(patterns);
    for (std::string p; std::getline(parts, p, ':');)
        if (!p.empty() && glob(p.c_str(), name.c_str())) return true;
    return false;
}

}  // namespace

bool matches_filter(const std::string& filter, const std::string& name)
{
    const auto minus = filter.find('-');
    const std::string positive = minus == std::string::npos ? filter : filter.substr(0, minus);
    const std::string negative = minus == std::string::npos ? "" : filter.substr(minus + 1);
    return any_glob(positive.empty() ? "*" : positive, name) && !any_glob(negative, name);
}

std::string verdict_text(const Verdict& v)
{
    switch (v.status) {
    case Status::passed: return "lab-case: passed\n";
    case Status::skipped: return "lab-case: skipped: " + v.reason + "\n";
    case Status::left_out: return "lab-case: left out: " + v.reason + "\n";
    case Status::failed: break;
    }
    return indented(v.message) + "lab-case: FAILED: " + v.reason + "\n";
}

namespace {

// For ctest's process per case: the cases of one test program that ended at a time limit, kept in
// PROGRAM.hung next to the program while it stays the same build (kHangsBeforeStopping, as run_all
// counts them in one process). Rebuilding the program starts the count afresh.
class HangRecord {
public:
    explicit HangRecord(const std::string& exe) : path_(exe + ".hung")
    {
        struct stat info {};
        if (stat(exe.c_str(), &info) == 0)
            build_ = std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
                     std::to_string(info.st_mtim.tv_nsec);
    }

    // The cases recorded for this build of the program.
    std::vector<std::string> cases() const
    {
        std::vector<std::string> found;
        std::ifstream in(path_);
        std::string line;
        while (std::getline(in, line))
            if (line.rfind(build_ + " ", 0) == 0) found.push_back(line.substr(build_.size() + 1));
        return found;
    }

    void add(const std::string& test) const
    {
        // One short line per write, appended: cases that ctest runs side by side do not mix their lines.
        const std::string line = build_ + " " + test + "\n";
        const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd < 0) return;
        [[maybe_unused]] const auto written = write(fd, line.data(), line.size());  // a lost line only costs time
        close(fd);
    }

private:
    std::string path_;
    std::string build_;
};

int mode_run(const Runner& runner, const std::vector<lab::PlannedTest>& plan)
{
    const lab::PlannedTest* t = find_test(plan, runner.options.test);
    if (!t) {
        std::cout << "lab-case: FAILED: the kit plans no test named " << runner.options.test << " for rung "
                  << runner.rung.id << "; rebuild to refresh the list of tests.\n";
        return 1;
    }
    const HangRecord hangs(runner.options.exe);
    const bool ask = t->kind == lab::TestKind::racecheck || runner.options.racecheck_tool;
    // A case the kit skips here is skipped whatever ran before it (as lab-case batch decides too).
    if (const auto earlier = hangs.cases(); earlier.size() >= kHangsBeforeStopping && !runner.kit_skip(*t, ask)) {
        std::cout << "lab-case: FAILED: " << not_run_after_hangs(runner.rung.id, earlier.size(), earlier.front()) << "\n";
        return 1;
    }
    std::string output;
    const Verdict v = runner.run_all({t}, &output).front();
    if (v.status == Status::failed && ended_at_a_time_limit(v.message, v.reason)) hangs.add(t->name);
    if (v.status == Status::skipped) {
        std::cout << verdict_text(v) << indented(output);  // the skip first: a report may keep only the start
        return kSkipped;
    }
    std::cout << indented(output) << (v.status == Status::failed ? "lab-case: FAILED: " + v.reason + "\n"
                                                                 : verdict_text(v));
    return v.status == Status::passed ? 0 : 1;
}

int mode_batch(const Runner& runner, const std::vector<lab::PlannedTest>& plan)
{
    const Options& o = runner.options;
    std::vector<bool> runs(plan.size(), true);
    std::uint64_t seed = 0;
    if (!o.sample.empty()) {
        const auto given = lab::parse_seed_text(o.sample);
        if (!given) usage("--sample needs a number (a seed such as 0x1f2e3d), not " + o.sample);
        seed = *given;
        runs = lab::cpu_sample(plan, seed);
    }
    std::vector<const lab::PlannedTest*> plain, racecheck, left_out;
    for (std::size_t i = 0; i < plan.size(); ++i)
        if (o.filter.empty() || matches_filter(o.filter, plan[i].name))
            (!runs[i] ? left_out : plan[i].kind == lab::TestKind::racecheck ? racecheck : plain).push_back(&plan[i]);
    const std::size_t total = plain.size() + racecheck.size();
    std::size_t reached = 0;
    const auto progress = [&](std::size_t done) {
        if (!o.progress_lines || done == reached) return;
        reached = done;
        std::cout << "lab-case: progress " << done << "/" << total << std::endl;
    };
    std::vector<const lab::PlannedTest*> order = plain;
    std::vector<Verdict> verdicts = runner.run_all(plain, nullptr, progress);
    for (const auto* t : racecheck) {
        order.push_back(t);
        const std::size_t before = order.size() - 1;
        verdicts.push_back(runner.run_all({t}, nullptr, [&](std::size_t done) { progress(before + done); }).front());
    }
    const std::string sample_seed = lab::seed_text(seed);
    for (const auto* t : left_out) {
        order.push_back(t);
        verdicts.push_back({Status::left_out,
                            std::string("a sample: of the larger cases, one of each shape ran (seed ") + sample_seed + ").",
                            ""});
    }
    int passed = 0, failed = 0, skipped = 0, omitted = 0;
    std::ostringstream xml;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Verdict& v = verdicts[i];
        const char* status = v.status == Status::passed ? "run" : v.status == Status::failed ? "fail" : "notrun";
        (v.status == Status::passed ? passed : v.status == Status::skipped ? skipped : v.status == Status::left_out ? omitted : failed)++;
        if (v.status == Status::failed) std::cout << "FAILED " << order[i]->name << ": " << v.reason << "\n";
        xml << "\t<testcase name=\"" << lab::xml_escape(order[i]->name) << "\" status=\"" << status << "\">\n";
        if (v.status == Status::skipped) xml << "\t\t<skipped message=\"SKIP_RETURN_CODE=77\"/>\n";
        if (v.status == Status::left_out) xml << "\t\t<skipped message=\"LEFT_OUT\"/>\n";
        xml << "\t\t<system-out>" << lab::xml_escape(verdict_text(v)) << "</system-out>\n\t</testcase>\n";
    }
    std::cout << "rung " << runner.rung.id << ": " << passed << " passed, " << failed << " failed, " << skipped
              << " skipped (by the kit)";
    if (omitted) std::cout << ", " << omitted << " left out (sample " << sample_seed << ")";
    std::cout << "\n";
    if (!o.junit.empty()) {
        std::ofstream file(o.junit);
        file << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"" << lab::xml_escape(runner.rung.id)
             << "\" tests=\"" << order.size() << "\" failures=\"" << failed << "\" skipped=\"" << skipped + omitted << "\">\n"
             << xml.str() << "</testsuite>\n";
        if (!file) {
            std::cerr << "lab-case: cannot write " << o.junit << "\n";
            return 2;
        }
    }
    return failed ? 1 : 0;
}

int mode_catch(const Runner& runner, const std::vector<lab::PlannedTest>& plan)
{
    const Options& o = runner.options;
    std::vector<const lab::PlannedTest*> chosen;
    for (const auto& t : plan)
        if (t.kind != lab::TestKind::racecheck && matches_filter(o.filter, t.runs)) chosen.push_back(&t);
    if (chosen.empty()) {
        std::cout << "lab-case: FAILED: the filter " << o.filter << " selects none of rung " << runner.rung.id
                  << "'s tests.\n";
        return 1;
    }
    const std::vector<Verdict> verdicts = runner.run_all(chosen, nullptr);
    const std::regex expect(o.expect);
    std::string first_reason, said;
    int failed = 0, skipped = 0;
    for (const Verdict& v : verdicts) {
        if (v.status == Status::skipped) ++skipped;
        if (v.status != Status::failed) continue;
        if (failed++ == 0) first_reason = v.message + v.reason;
        said += v.message + v.reason + "\n";
    }
    if (failed == 0 && skipped == static_cast<int>(verdicts.size())) {
        std::cout << "lab-case: skipped: every case that would catch " << o.name << " was skipped here: "
                  << verdicts.front().reason << "\n";
        return kSkipped;
    }
    if (failed == 0) {
        std::cout << "lab-case: FAILED: the suite did not catch the planted mistake " << o.name << ": " << o.mistake
                  << ". Every selected case (" << o.filter << ") passed, so the suite cannot tell this mistake from a "
                  << "right answer.\n";
        return 1;
    }
    if (!std::regex_search(said, expect)) {
        std::cout << "lab-case: FAILED: the suite failed the planted mistake " << o.name << " (" << o.mistake
                  << "), but its messages never say '" << o.expect << "', which a student would need to understand it."
                  << "\n" << indented(said);
        return 1;
    }
    std::cout << "caught " << o.name << " (" << failed << " of " << verdicts.size() << " cases failed): " << o.mistake
              << "\n" << indented(first_reason);
    return 0;
}

std::string bracket(const std::string& text) { return "[==[" + text + "]==]"; }

int mode_ctest(const Runner& runner, const std::vector<lab::PlannedTest>& plan, const std::string& self)
{
    const Options& o = runner.options;
    std::ostringstream file;
    file << "# Written by lab-case from rungs.json, tests/cases.json and tests/speed.json: the tests of rung "
         << runner.rung.id << ", each run and judged by lab-case.\n";
    for (const auto& t : plan) {
        file << "add_test(" << bracket(t.name) << ' ' << bracket(self) << " run --rung " << bracket(o.rung)
             << " --exe " << bracket(o.exe) << " --backend " << o.backend << " --timeout " << o.timeout;
        if (!o.sanitizer.empty()) file << " --sanitizer " << bracket(o.sanitizer);
        file << " --test " << bracket(t.name) << ")\n";
        std::string labels = runner.rung.label();
        if (t.kind != lab::TestKind::launcher) labels += ";kernel";
        if (t.kind == lab::TestKind::speed) labels += ";speed";
        if (t.kind == lab::TestKind::racecheck) labels += ";racecheck";
        file << "set_tests_properties(" << bracket(t.name) << " PROPERTIES LABELS \"" << labels
             << "\" SKIP_RETURN_CODE " << kSkipped << " TIMEOUT " << o.timeout + 30
             << (t.kind == lab::TestKind::speed ? " RUN_SERIAL TRUE" : "") << ")\n";
    }
    std::ofstream out(o.out);
    out << file.str();
    if (!out) {
        std::cerr << "lab-case: cannot write " << o.out << "\n";
        return 2;
    }
    return 0;
}

}  // namespace

}  // namespace case_runner

using namespace case_runner;

// `lab-case gpu`: listing a program's tests needs no GPU; running them does, and where none is
// usable the runner itself says so and skips, as it does for a rung's kernel cases.
int mode_gpu(int argc, char** argv)
{
    if (argc < 3) usage("gpu needs a program to run");
    bool listing = false;
    for (int i = 3; i < argc; ++i) listing |= std::strcmp(argv[i], "--gtest_list_tests") == 0;
    if (!listing) {
        const lab::DeviceStatus& device = lab::device_status();
        if (!device.usable) {
            std::cout << "lab-case: skipped: " << device.reason << " This kit test needs an NVIDIA GPU; skipped.\n";
            return kSkipped;
        }
    }
    std::cout.flush();
    execvp(argv[2], argv + 2);  // a program named without a folder (bash) is looked up in PATH
    std::cout << "lab-case: FAILED: cannot run " << argv[2] << ": " << std::strerror(errno) << "\n";
    return 1;
}

int main(int argc, char** argv)
{
    if (argc >= 2 && std::strcmp(argv[1], "gpu") == 0) return mode_gpu(argc, argv);
    try {
        const Options options = parse_options(argc, argv);
        const lab::RungInfo& rung = lab::Registry::kit().get(options.rung);
        const Runner runner{options, rung};
        const bool racecheck = options.backend == "cuda" && !options.sanitizer.empty() && !options.racecheck_tool;
        const std::vector<lab::PlannedTest> plan = lab::planned_tests(rung, racecheck);
        if (options.mode == "run") return mode_run(runner, plan);
        if (options.mode == "batch") return mode_batch(runner, plan);
        if (options.mode == "catch") return mode_catch(runner, plan);
        if (options.mode == "check") return mode_check(runner, plan);
        if (options.mode == "ctest") {
            char self[4096];
            const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
            return mode_ctest(runner, plan, length > 0 ? std::string(self, static_cast<std::size_t>(length)) : argv[0]);
        }
        usage("unknown mode " + options.mode);
    } catch (const std::exception& e) {
        std::cout << "lab-case: FAILED: " << e.what() << "\n";
        return 1;
    }
}
