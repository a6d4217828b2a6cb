// TRUSTED SIDE. See result.hpp.
#include "result.hpp"

#include <cmath>
#include <cstdio>
#include <sys/resource.h>

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

double Grade::score() const { return std::round(earned() * (1 - late.fraction) * 1e6) / 1e6; }

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
