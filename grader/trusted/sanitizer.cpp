// TRUSTED SIDE. See sanitizer.hpp.
#include "sanitizer.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "lab/device.hpp"
#include "lab/process.hpp"
#include "lab/sanitizer_log.hpp"
#include "lab/text.hpp"
#include "lab/diagnosis.hpp"
#include "plan.hpp"
#include "sandbox.hpp"

namespace lab::grading {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kSanitizerExit = 87;  // --error-exitcode: distinct from the runner's own exits
constexpr std::size_t kLogBytes = 256 * 1024;
constexpr std::size_t kShownLocations = 4;
constexpr std::size_t kShownCases = 3;

// `path` as the student knows it: `shown_as` when it is one of the paths the compilers saw their
// file under (absolute, or relative to the kit, as the CPU backend prints it); else "".
std::string shown_path(const std::string& path, const std::vector<std::string>& submitted, const std::string& shown_as)
{
    for (const std::string& s : submitted) {
        if (path == s) return shown_as;
        if (path.size() < s.size() && s.compare(s.size() - path.size(), path.size(), path) == 0 &&
            s[s.size() - path.size() - 1] == '/')
            return shown_as;
    }
    return "";
}

// "path/file.cu:41" in a tool's or the CPU backend's text: the path, its extension, the line.
const std::regex& source_location()
{
    static const std::regex location(R"(([^\s:()'"]+\.(cu|cuh|cpp|hpp|h)):([0-9]+))");
    return location;
}

// `text` with every path of the student's file shown as theirs.
std::string shown_text(std::string text, const std::vector<std::string>& submitted, const std::string& shown_as)
{
    std::string out;
    std::sregex_iterator it(text.begin(), text.end(), source_location()), end;
    std::size_t done = 0;
    for (; it != end; ++it) {
        const std::string shown = shown_path((*it)[1].str(), submitted, shown_as);
        if (shown.empty()) continue;
        out += text.substr(done, static_cast<std::size_t>(it->position(1)) - done) + shown;
        done = static_cast<std::size_t>(it->position(1) + it->length(1));
    }
    return out + text.substr(done);
}

// The student's file's locations in `text` ("exercises/NN.cu:41"), each once, in order.
std::vector<std::string> locations_in(const std::string& text, const std::vector<std::string>& submitted,
                                      const std::string& shown_as)
{
    std::vector<std::string> found;
    for (std::sregex_iterator it(text.begin(), text.end(), source_location()), end; it != end; ++it) {
        const std::string shown = shown_path((*it)[1].str(), submitted, shown_as);
        if (shown.empty()) continue;
        const std::string where = shown + ":" + (*it)[3].str();
        if (std::find(found.begin(), found.end(), where) == found.end()) found.push_back(where);
    }
    return found;
}

std::string plural(long count, const std::string& noun)
{
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string finding(const std::string& where, const std::string& check, const std::string& what)
{
    return where + ": [" + check + "] " + what;
}

// What the tool was told, and how long it may take: every case of the pass, a few times the
// case limit for the tool's own slowness, never past the rung's limit.
double tool_seconds(const Limits& limits, std::size_t cases)
{
    return std::min(limits.rung_seconds, limits.case_seconds * 3.0 * static_cast<double>(cases + 1));
}

void run_tool(const RungInfo& rung, const SanitizerRun& run, const std::string& tool, const std::vector<PlannedCase>& cases,
              const Limits& limits, const std::string& work_dir, SanitizerResult& result)
{
    const std::string dir = work_dir + "/" + tool;
    fs::remove_all(dir);
    fs::create_directories(dir);
    Request request;
    request.rung = rung.id;
    for (const PlannedCase& p : cases) request.jobs.push_back(job_for(p));
    std::ofstream(dir + "/request.json") << to_json(request);
    const std::string log = dir + "/sanitizer.log";
    std::vector<std::string> argv{run.tool_path, "--tool", tool, "--error-exitcode", std::to_string(kSanitizerExit),
                                  "--log-file", log, "--print-limit", "20", "--show-backtrace", "no"};
    argv.insert(argv.end(), {run.runner, dir + "/request.json", dir, "0"});
    const double seconds = tool_seconds(limits, cases.size());
    const LimitedRun ended = run_limited(argv, dir, limits, seconds);
    const std::string shown_as = "exercises/" + rung.id + ".cu";
    const std::string log_text = read_runner_file(log, kLogBytes).value_or("");
    const ToolLog parsed = read_tool_log(log_text, run.submitted, shown_as);
    result.checks.push_back(tool);
    result.memory_refused = result.memory_refused || says_memory_ran_out(log_text);
    const bool flagged = ended.exited && WIFEXITED(ended.status) && WEXITSTATUS(ended.status) == kSanitizerExit;
    const std::string where = parsed.locations.empty() ? shown_as : parsed.locations.front();
    if (!parsed.summary) {
        const std::string how = !ended.exited ? "stopped after " + std::to_string(static_cast<int>(seconds)) + " s"
                                : !ended.limit.empty() ? "stopped: " + ended.limit
                                : WIFSIGNALED(ended.status) ? "killed by signal " + std::to_string(WTERMSIG(ended.status))
                                                            : "exit status " + std::to_string(WEXITSTATUS(ended.status));
        result.findings.push_back(finding(where, tool, "compute-sanitizer " + tool + " ended before its summary (" + how +
                                                           "): the kernel hung, crashed the tool, or ran too long under it" +
                                                           (parsed.reports.empty() ? "" : "; it had reported: " + parsed.reports.front())));
        return;
    }
    if (parsed.count == 0 && !flagged) return;
    std::string what;
    if (parsed.count == 0) {
        what = "compute-sanitizer " + tool + " exited with its error status, though its summary says 0";
    } else {
        what = plural(parsed.count, tool == "racecheck" ? "hazard" : "error") +
               (parsed.reports.empty() ? "" : ", first: " + parsed.reports.front());
        if (parsed.locations.size() > 1) {
            std::vector<std::string> lines;  // "43" of "exercises/NN.cu:43": the file is named once, in front
            for (const std::string& l : parsed.locations) lines.push_back(l.substr(l.rfind(':') + 1));
            what += " (lines " + lab::joined(lines, kShownLocations) + ")";
        }
    }
    result.timing_hazard = result.timing_hazard || tool == "racecheck" || tool == "synccheck";
    if (tool == "racecheck")
        what += ". Threads read and write the same shared slot with nothing ordering them: inside a warp, "
                "separate the read and the write with __syncwarp() (or use __shfl_down_sync); between warps, "
                "__syncthreads(). `volatile` orders nothing.";
    result.findings.push_back(finding(where, tool, what));
}

void run_orders(const RungInfo& rung, const SanitizerRun& run, const std::vector<PlannedCase>& cases,
                const Limits& limits, const std::string& work_dir, SanitizerResult& result)
{
    const std::string shown_as = "exercises/" + rung.id + ".cu";
    const std::string check = "thread orders";
    const std::vector<CaseResult> results =
        run_and_check(rung, run.cpu_runner, cases, run.orders, limits, work_dir + "/orders", replay_command);
    result.checks.push_back(check + " (" + lab::joined(run.orders) + ", on the CPU backend)");
    std::map<std::string, std::vector<std::string>> cases_of;  // finding -> the cases that show it
    std::vector<std::string> order;
    auto add = [&](const std::string& text, const std::string& name) {
        if (!cases_of.count(text)) order.push_back(text);
        cases_of[text].push_back(name);
    };
    for (const CaseResult& c : results) {
        const std::string name = c.op + "/" + c.name;
        if (!c.kernel_error.empty()) {
            const std::string error = shown_text(c.kernel_error, run.submitted, shown_as);
            const auto where = locations_in(c.kernel_error, run.submitted, shown_as);
            add(finding(where.empty() ? shown_as : where.front(), check, "the kernel failed on the CPU backend: " + error), name);
        } else if (c.overran) {
            add(finding(shown_as, check, "the kernel wrote outside its output (the guards around it changed)"), name);
        } else if (!c.failed_orders.empty() && (!c.passed_orders.empty() || c.orders_differ)) {
            add(finding(shown_as, check,
                        c.passed_orders.empty()
                            ? "the block results differ between thread orders (" + lab::joined(c.failed_orders, 3) + "). " +
                                  thread_order_advice(rung, c.failed_orders)
                            : "right when the threads run in " + c.passed_orders.front() + " order, wrong in " +
                                  c.failed_orders.front() + " order. " + thread_order_advice(rung, c.failed_orders)),
                name);
        } else if (c.status == "failed" && c.failed_orders.empty()) {
            add(finding(shown_as, check, "the pass did not finish: " + shown_text(c.message, run.submitted, shown_as)), name);
        }
    }
    for (const std::string& text : order)
        result.findings.push_back(text + " (case" + (cases_of[text].size() > 1 ? "s " : " ") +
                                  lab::joined(cases_of[text], kShownCases) + ")");
}

}  // namespace

ToolLog read_tool_log(const std::string& log, const std::vector<std::string>& submitted, const std::string& shown_as)
{
    ToolLog parsed;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("=========", 0) != 0) continue;  // the runner's own output: the tool prefixes every line of its own
        if (const auto summary = lab::sanitizer_summary_in(line)) {
            parsed.summary = true;
            parsed.count = std::max(parsed.count, summary->count);
            continue;
        }
        const std::size_t after = line.find_first_not_of('=');
        const std::string text = after == std::string::npos ? "" : line.substr(after);
        // A report starts at the margin; its details ("at ...", "by thread ...") are indented.
        if (text.size() < 2 || text[0] != ' ' || text[1] == ' ') continue;
        const std::string report = text.substr(1);
        if (report.rfind("COMPUTE-SANITIZER", 0) == 0 || report.rfind("Target application", 0) == 0 ||
            report.rfind("Program hit", 0) == 0 || report.rfind("Saved host backtrace", 0) == 0)
            continue;
        if (parsed.reports.size() < 10)
            parsed.reports.push_back(shown_text(report.substr(0, 300), submitted, shown_as));
    }
    parsed.locations = locations_in(log, submitted, shown_as);
    return parsed;
}

std::vector<PlannedCase> sanitizer_cases(const std::vector<PlannedCase>& planned, const SanitizerRules& rules)
{
    std::vector<const PlannedCase*> candidates;
    for (const PlannedCase& p : planned)
        if (!p.hidden && p.skip.empty() && static_cast<double>(p.c.n) <= rules.max_n) candidates.push_back(&p);
    // The largest first: more blocks, a tail, every step of the tree.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const PlannedCase* a, const PlannedCase* b) { return a->c.n > b->c.n; });
    const auto most = static_cast<std::size_t>(rules.cases);
    std::vector<PlannedCase> chosen;
    std::set<std::string> groups;
    std::set<const PlannedCase*> taken;
    for (const PlannedCase* p : candidates)
        if (chosen.size() < most && groups.insert(std::string(name_of(p->c.op)) + "/" + p->c.group).second)
            chosen.push_back(*p), taken.insert(p);
    for (const PlannedCase* p : candidates)
        if (chosen.size() < most && !taken.count(p)) chosen.push_back(*p), taken.insert(p);
    // No canaries after the input: a read past its end, used or not, leaves the allocation.
    for (PlannedCase& p : chosen) p.ends_exactly = true;
    return chosen;
}

std::string compute_sanitizer()
{
#if defined(LAB_COMPUTE_SANITIZER)
    if (access(LAB_COMPUTE_SANITIZER, X_OK) == 0) return LAB_COMPUTE_SANITIZER;
#endif
    if (std::string found = lab::process::find_program("compute-sanitizer"); !found.empty()) return found;
    for (const std::string dir : {"/usr/local/cuda/bin", "/usr/local/cuda/compute-sanitizer"})
        if (access((dir + "/compute-sanitizer").c_str(), X_OK) == 0) return dir + "/compute-sanitizer";
    return "";
}

void run_sanitizer_tools(const RungInfo& rung, const SanitizerRun& run, const std::vector<PlannedCase>& cases,
                         const Limits& limits, const std::string& work_dir, SanitizerResult& result)
{
    if (cases.empty()) {
        result.note = "no visible case small enough for the pass runs here";
        return;
    }
    if (run.runner.empty() || run.tools.empty()) return;
    fs::create_directories(work_dir);
    if (run.tool_path.empty()) result.note += "compute-sanitizer was not found (it comes with the CUDA Toolkit): its tools did not run. ";
    else
        for (const std::string& tool : run.tools) run_tool(rung, run, tool, cases, limits, work_dir, result);
}

void run_sanitizer_orders(const RungInfo& rung, const SanitizerRun& run, const std::vector<PlannedCase>& cases,
                          const Limits& limits, const std::string& work_dir, SanitizerResult& result)
{
    if (cases.empty()) return;  // the tools' half says so
    fs::create_directories(work_dir);
    SanitizerRun then = run;
    if (then.before_orders) then.before_orders(then);
    if (!then.cpu_runner.empty()) run_orders(rung, then, cases, limits, work_dir, result);
    else if (!then.cpu_missing.empty()) result.note += "The thread orders did not run: " + then.cpu_missing;
}

void append(SanitizerResult& tools, SanitizerResult orders)
{
    tools.checks.insert(tools.checks.end(), orders.checks.begin(), orders.checks.end());
    tools.findings.insert(tools.findings.end(), orders.findings.begin(), orders.findings.end());
    tools.note += orders.note;
    tools.memory_refused = tools.memory_refused || orders.memory_refused;
    tools.timing_hazard = tools.timing_hazard || orders.timing_hazard;
}

}  // namespace lab::grading
