// See lesson_numbers.hpp.
#include "lab/lesson_numbers.hpp"

#include <cmath>
#include <stdexcept>

namespace lab {

using nlohmann::json;

const std::vector<LessonNumber>& lesson_numbers()
{
    static const std::vector<LessonNumber> all = {
        {"active_lanes", "active lanes per warp instruction, of 32", 1},
        {"warps_per_block", "warps at work per block, over all its steps", 1},
        {"wavefronts_per_request", "shared-memory wavefronts per request (1: no bank conflicts, for 4-byte words)", 2},
        {"sectors_per_request", "32-byte sectors per device-memory request", 2},
        {"sectors_over_least", "device-memory sectors per sector its bytes need (1: every load coalesced)", 2},
        {"elements_per_thread", "input elements per thread of the first launch", 1},
        {"barriers_per_block", "__syncthreads() per block", 1},
        {"launches", "kernel launches", 0},
        {"read_over_least", "bytes read from device memory per byte of input", 2},
        {"remote_reads_per_block", "requests to another block's shared memory per block (a cluster's exchange)", 1},
    };
    return all;
}

namespace {

double count(const json& counts, const char* key)
{
    const json* value = counts.contains(key) ? &counts.at(key) : nullptr;
    if (!value || !value->is_number()) throw std::runtime_error(std::string("the measurement has no count \"") + key + "\"");
    const double v = value->get<double>();
    if (!std::isfinite(v) || v < 0) throw std::runtime_error(std::string("the measurement's count \"") + key + "\" is not a count");
    return v;
}

double ratio(double part, double whole, double none) { return whole > 0 ? part / whole : none; }

}  // namespace

std::map<std::string, double> measure_lessons(const json& measured)
{
    if (!measured.is_object()) throw std::runtime_error("the measurement is not a JSON object");
    if (!measured.value("instrumented", false))
        throw std::runtime_error("nothing of the kernel was measured (no instrumented code ran)");
    const json& launches = measured.contains("launches") ? measured.at("launches") : json();
    if (!launches.is_array() || launches.empty()) throw std::runtime_error("the measurement holds no kernel launch");
    const double n = count(measured, "n"), least_read = count(measured, "least_read");
    const char* keys[] = {"instructions",    "lanes",          "warps",        "shared_requests", "shared_wavefronts",
                          "global_requests", "global_sectors", "global_least_sectors", "global_read", "barriers",
                          "distributed_requests"};
    std::map<std::string, double> total;
    double blocks = 0;
    for (const json& launch : launches) {
        if (!launch.is_object() || !launch.contains("total")) throw std::runtime_error("a launch of the measurement has no totals");
        const double grid = count(launch, "grid"), block = count(launch, "block");
        if (grid < 1 || block < 1) throw std::runtime_error("a launch of the measurement has no blocks or no threads");
        blocks += grid;
        for (const char* key : keys) total[key] += count(launch.at("total"), key);
    }
    if (total["lanes"] > 32 * total["instructions"])
        throw std::runtime_error("the measurement counts more than 32 lanes per warp instruction");
    if (total["shared_wavefronts"] < total["shared_requests"] || total["shared_wavefronts"] > 32 * total["shared_requests"])
        throw std::runtime_error("the measurement's shared-memory wavefronts are not between 1 and 32 per request");
    if (total["global_sectors"] < total["global_least_sectors"] || total["global_sectors"] > 32 * total["global_requests"])
        throw std::runtime_error("the measurement's device-memory sectors are fewer than its bytes need, or more than 32 per request");
    const json& first = launches.front();
    std::map<std::string, double> numbers;
    numbers["active_lanes"] = ratio(total["lanes"], total["instructions"], 0);
    numbers["warps_per_block"] = ratio(total["warps"], blocks, 0);
    numbers["wavefronts_per_request"] = ratio(total["shared_wavefronts"], total["shared_requests"], 1);
    numbers["sectors_per_request"] = ratio(total["global_sectors"], total["global_requests"], 0);
    numbers["sectors_over_least"] = ratio(total["global_sectors"], total["global_least_sectors"], 1);
    numbers["elements_per_thread"] = n / (count(first, "grid") * count(first, "block"));
    numbers["barriers_per_block"] = ratio(total["barriers"], blocks, 0);
    numbers["launches"] = static_cast<double>(launches.size());
    numbers["read_over_least"] = ratio(total["global_read"], least_read, 0);
    numbers["remote_reads_per_block"] = ratio(total["distributed_requests"], blocks, 0);
    return numbers;
}

}  // namespace lab
