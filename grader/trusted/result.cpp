// TRUSTED SIDE. See result.hpp.
#include "result.hpp"

#include <cmath>
#include <cstdio>

namespace lab::grading {

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
    for (const Part& p : parts) total += p.graded ? p.max : 0;
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

std::string Grade::seed_text() const
{
    char text[32];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(seed));
    return text;
}

}  // namespace lab::grading
