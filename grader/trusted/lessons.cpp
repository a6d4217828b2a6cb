// TRUSTED SIDE. See lessons.hpp.
#include "lessons.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "builder.hpp"
#include "lab/lesson_numbers.hpp"
#include "lab/registry.hpp"
#include "plan.hpp"

namespace lab::grading {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMeasurementBytes = 32 * 1024 * 1024;  // a measurement at 2^20 is well under 1 MB
// The grid of a rung that sizes it to the device (07-09): fixed, so that no number depends on the
// grading machine (the CPU backend plans one "multiprocessor" per core).
constexpr unsigned kGrid = 1024;

// One explain program run in its own folder `dir`: its numbers, or why there are none (`why`).
std::map<std::string, double> measure(const RungInfo& rung, const std::string& program, const std::string& dir,
                                      const Limits& limits, std::string& why)
{
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string json = dir + "/lessons.json";
    std::vector<std::string> argv{program, "--json", json};
    if (rung.grid == GridPolicy::sm_count) argv.insert(argv.end(), {"--grid", std::to_string(kGrid)});
    const LimitedRun ended = run_limited(argv, dir, limits, limits.case_seconds);
    if (!ended.exited) {
        why = ended.limit.empty() ? "it ran past the case limit of " + std::to_string(static_cast<int>(limits.case_seconds)) + " s"
                                  : "stopped: " + ended.limit;
        return {};
    }
    // Exit 1: the kernel failed under measurement; the JSON says how ("error").
    if (!WIFEXITED(ended.status) || WEXITSTATUS(ended.status) > 1) {
        why = WIFSIGNALED(ended.status) ? "it was killed by signal " + std::to_string(WTERMSIG(ended.status))
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

void grade_lessons(Grade& g, const Rubric& rubric, const std::map<std::string, std::string>& explainers,
                   const std::string& tree, const std::string& missing, const Limits& limits, int jobs,
                   const std::string& work)
{
    if (!rubric.lessons.measure) return;
    std::vector<RungResult*> chosen;
    for (RungResult& r : g.rungs)
        if (r.built && !r.reused) chosen.push_back(&r);
    if (chosen.empty()) return;
    std::vector<std::string> ids;
    for (const RungResult* r : chosen) ids.push_back(r->id);
    std::string reference_why = missing;
    const std::map<std::string, std::string> references =
        tree.empty() ? std::map<std::string, std::string>{} : reference_explainers(tree, ids, jobs, reference_why);
    // A few at a time on a machine with cores to spare (each program is short, and the CPU backend
    // runs a launch's blocks on every core): one on 2 cores, four on 16.
    const int at_once = std::max(1, std::min(4, static_cast<int>(std::thread::hardware_concurrency()) / 4));
    std::mutex printing;
    side_by_side(chosen.size(), at_once, [&](std::size_t k) {
        RungResult& r = *chosen[k];
        LessonResult& l = r.lessons;
        const auto started = std::chrono::steady_clock::now();
        const auto found = explainers.find(r.id);
        if (tree.empty()) {
            l.note = "not measured: " + missing;
        } else if (found == explainers.end()) {
            l.note = "not measured: the file did not build for the CPU backend's measurement";
        } else {
            std::string why;
            const RungInfo& rung = Registry::kit().get(r.id);
            l.yours = measure(rung, found->second, work + "/" + r.id + "-lessons", limits, why);
            if (!l.measured()) l.note = "not measured: " + why;
            std::string not_reference = reference_why;
            if (references.count(r.id))
                l.reference = measure(rung, references.at(r.id), work + "/" + r.id + "-lessons-reference", limits, not_reference);
            if (l.measured())
                l.note = "measured on the CPU backend at n = 2^20 in blocks of 256" +
                         (rung.grid == GridPolicy::sm_count ? ", " + std::to_string(kGrid) + " of them" : std::string()) +
                         (l.reference.empty() ? "; the reference's numbers could not be (" + not_reference + ")" : std::string());
        }
        r.phases["lessons"] = seconds_since(started);
        score_technique(r, rubric);
        const std::lock_guard<std::mutex> lock(printing);
        std::printf("  %-20s lessons: %s\n", r.id.c_str(), l.note.c_str());
        std::fflush(stdout);
    });
}

}  // namespace lab::grading
