// TRUSTED SIDE. See result.hpp.
#include "result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sys/resource.h>

#include "lab/hints.hpp"
#include "lab/process.hpp"
#include "lab/text.hpp"

namespace lab::grading {

std::map<std::string, double> cpu_of_this_grading()
{
    std::map<std::string, double> cpu = lab::process::cpu_seconds();
    const auto seconds = [](int who) {
        rusage usage{};
        getrusage(who, &usage);
        const auto of = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
        return of(usage.ru_utime) + of(usage.ru_stime);
    };
    // A child reaped other than through lab/process.hpp (none should be) still counts, as "other".
    const double unaccounted = seconds(RUSAGE_CHILDREN) - lab::process::reaped_cpu_seconds();
    if (unaccounted > 0.01) cpu["other"] += unaccounted;
    cpu["grader"] = seconds(RUSAGE_SELF);
    return cpu;
}

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double RungResult::score() const
{
    double total = 0;
    for (const Part& p : parts) total += p.graded ? p.score : 0;
    return std::round(total * 1e6) / 1e6;
}

double RungResult::max() const
{
    double total = 0;
    for (const Part& p : parts) total += p.max;  // a part not graded here keeps its points in the maximum
    return total;
}

double RungResult::held() const
{
    double total = 0;
    for (const Part& p : parts) total += p.graded ? 0 : p.max;
    return total;
}

int RungResult::count(const std::string& status, int hidden) const
{
    int n = 0;
    for (const CaseResult& c : cases)
        if (c.status == status && (hidden < 0 || c.hidden == (hidden == 1))) ++n;
    return n;
}

const Part* RungResult::part(const std::string& name) const
{
    for (const Part& p : parts)
        if (p.name == name) return &p;
    return nullptr;
}

double Grade::earned() const
{
    double total = 0;
    for (const RungResult& r : rungs) total += r.score();
    return std::round(total * 1e6) / 1e6;
}

double HintsResult::total_off() const
{
    double total = 0;
    for (const auto& [rung, off] : points_off) total += off;
    return total;
}

HintsResult hints_verdict(const std::optional<std::string>& record, const std::vector<RungResult>& rungs,
                          const std::function<double(int)>& cost)
{
    HintsResult hints;
    if (!record) {
        hints.note = "no record of hints: the submission has no exercises/hints_used.json";
        return hints;
    }
    const auto levels = lab::parse_hints_record(*record);
    if (!levels) {
        hints.note = "no record of hints: exercises/hints_used.json is not one that ./lab hint writes (left alone)";
        return hints;
    }
    hints.recorded = true;
    hints.levels = *levels;
    hints.note = "exercises/hints_used.json as the submission holds it: ./lab hint writes it, and the student can edit it";
    for (const RungResult& r : rungs) {
        double off = 0;
        for (const auto& [todo, level] : hints.levels)
            if (todo.compare(0, 2, r.id, 0, 2) == 0) off += cost(level);
        if (off > 0) hints.points_off[r.id] = std::min(off, r.score());
    }
    return hints;
}

double Grade::score() const { return std::round(std::max(0.0, earned() - hints.total_off()) * (1 - late.fraction) * 1e6) / 1e6; }

double Grade::max() const
{
    double total = 0;
    for (const RungResult& r : rungs) total += r.max();
    return total;
}

double Grade::held() const
{
    double total = 0;
    for (const RungResult& r : rungs) total += r.held();
    return total;
}

std::string Grade::seed_text() const
{
    return lab::seed_text(seed);
}

}  // namespace lab::grading
