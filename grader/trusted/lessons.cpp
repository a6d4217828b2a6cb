// TRUSTED SIDE. See lessons.hpp.
#include "lessons.hpp"

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "builder.hpp"
#include "lab/lesson_numbers.hpp"
#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/shape.hpp"
#include "lab/text.hpp"
#include "plan.hpp"

namespace lab::grading {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMeasurementBytes = 32 * 1024 * 1024;  // a measurement at 2^20 is well under 1 MB
// The grid of a rung that sizes it to the device (07-09): fixed, so that no number depends on the
// grading machine (the CPU backend plans one "multiprocessor" per core).
constexpr unsigned kGrid = 1024;

// The explain program's options for `rung`, besides where its JSON goes: the fixed grid of a rung
// that sizes it to the device, and where its lesson shows when not at 2^20 (rungs.json "lessons_at").
std::vector<std::string> measurement_options(const RungInfo& rung)
{
    std::vector<std::string> options;
    if (rung.shape->sizes_grid_to_device()) options = {"--grid", std::to_string(kGrid)};
    options.insert(options.end(), rung.lessons_at.begin(), rung.lessons_at.end());
    return options;
}

// One explain program run in its own folder `dir`: its numbers, or why there are none (`why`).
std::map<std::string, double> measure(const RungInfo& rung, const std::string& program, const std::string& dir,
                                      const Limits& limits, std::string& why)
{
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string json = dir + "/lessons.json";
    std::vector<std::string> argv{program, "--json", json};
    const std::vector<std::string> options = measurement_options(rung);
    argv.insert(argv.end(), options.begin(), options.end());
    const LimitedRun ended = run_limited(argv, dir, limits, limits.case_seconds);
    if (!ended.exited) {
        why = ended.limit.empty() ? "it ran past the case limit of " + std::to_string(static_cast<int>(limits.case_seconds)) + " s"
                                  : "stopped: " + ended.limit;
        return {};
    }
    // Exit 1: the kernel failed under measurement; the JSON says how ("error").
    if (!WIFEXITED(ended.status) || WEXITSTATUS(ended.status) > 1) {
        // RLIMIT_CPU's signal, or the sandbox's report of it (128 + the signal).
        const bool out_of_cpu = (WIFSIGNALED(ended.status) && WTERMSIG(ended.status) == SIGXCPU) ||
                                (WIFEXITED(ended.status) && WEXITSTATUS(ended.status) == 128 + SIGXCPU);
        why = out_of_cpu ? "it used more than " + std::to_string(limits.runner.cpu_seconds) +
                               " s of a core, the rubric's [lessons] cpu_seconds (a reference takes a second or two): "
                               "it does far more work than the rung needs"
              : WIFSIGNALED(ended.status) ? "it was killed by signal " + std::to_string(WTERMSIG(ended.status))
                                          : "it ended with status " + std::to_string(WEXITSTATUS(ended.status));
        return {};
    }
    try {
        const auto text = read_runner_file(json, kMeasurementBytes);
        if (!text) throw std::runtime_error("it wrote no measurement");
        const nlohmann::json measured = nlohmann::json::parse(*text);
        if (const std::string error = measured.value("error", ""); !error.empty())
            throw std::runtime_error("the kernel failed under measurement: " + error);
        return measure_lessons(measured);
    } catch (const std::exception& e) {
        why = e.what();
        return {};
    }
}

}  // namespace

std::map<std::string, double> reference_numbers(const RungInfo& rung, const std::string& program,
                                                 const std::string& dir, const Limits& limits, std::string& why)
{
    const std::optional<std::string> bytes = try_read_file(program);
    if (!bytes) return measure(rung, program, dir, limits, why);
    std::string options;  // the numbers depend on nothing but the program and these
    for (const std::string& a : measurement_options(rung)) options += " " + a;
    std::uint64_t key = fnv1a_mix(fnv1a_mix(0, *bytes), options);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
    const std::string kept = program + ".lessons-" + hex + ".json";
    if (const auto text = try_read_file(kept)) {
        try {
            return nlohmann::json::parse(*text).get<std::map<std::string, double>>();
        } catch (const std::exception&) {
            // (an unreadable copy is measured again and replaced)
        }
    }
    std::map<std::string, double> numbers = measure(rung, program, dir, limits, why);
    if (!numbers.empty()) {
        std::error_code ignored;  // (the copies an earlier build of the program left)
        for (const auto& entry : fs::directory_iterator(fs::path(program).parent_path(), ignored))
            if (entry.path().filename().string().rfind(fs::path(program).filename().string() + ".lessons-", 0) == 0)
                fs::remove(entry.path(), ignored);
        const std::string partial = kept + "." + std::to_string(::getpid());
        std::ofstream(partial) << nlohmann::json(numbers).dump();
        fs::rename(partial, kept, ignored);
        if (ignored) fs::remove(partial, ignored);
    }
    return numbers;
}

Lessons::Lessons(const Rubric& rubric, const std::vector<std::string>& built, std::function<Explainers()> where,
                 const Limits& limits, int jobs, std::string work)
    : rubric_(rubric), where_(std::move(where)), limits_(limits), jobs_(jobs), work_(std::move(work))
{
    if (rubric_.lessons.measure) ids_ = built;
    // A measurement's budget, the reference's too: the rubric's [lessons] cpu_seconds.
    limits_.runner.cpu_seconds =
        std::min(limits_.runner.cpu_seconds, static_cast<std::uint64_t>(std::max(1.0, rubric_.lessons.cpu_seconds)));
}

bool Lessons::wanted(const RungResult& r) const
{
    return rubric_.lessons.measure && r.built && !r.reused;
}

double Lessons::measure(const std::string& id, LessonResult& l)
{
    // The programs, and the reference's for every rung measured, once, by the first rung here (on a
    // GPU it waits for the CPU backend's build).
    std::call_once(found_, [this] {
        programs_ = where_();
        reference_why_ = programs_.missing;
        if (!programs_.tree.empty()) references_ = reference_explainers(programs_.tree, ids_, jobs_, reference_why_);
    });
    const auto started = std::chrono::steady_clock::now();
    const auto found = programs_.programs.find(id);
    if (programs_.tree.empty()) {
        l.note = "not measured: " + programs_.missing;
    } else if (found == programs_.programs.end()) {
        l.note = "not measured: the file did not build for the CPU backend's measurement";
    } else {
        std::string why;
        const RungInfo& rung = Registry::kit().get(id);
        l.yours = lab::grading::measure(rung, found->second, work_ + "/" + id + "-lessons", limits_, why);
        if (!l.measured()) l.note = "not measured: " + why;
        std::string not_reference = reference_why_;
        if (references_.count(id))
            l.reference = reference_numbers(rung, references_.at(id), work_ + "/" + id + "-lessons-reference", limits_,
                                                not_reference);
        if (l.measured())
            l.note = "measured on the CPU backend at n = 2^20 in blocks of 256" +
                     (rung.shape->sizes_grid_to_device() ? ", " + std::to_string(kGrid) + " of them" : std::string()) +
                     (l.reference.empty() ? "; the reference's numbers could not be (" + not_reference + ")" : std::string());
    }
    return seconds_since(started);
}

}  // namespace lab::grading
