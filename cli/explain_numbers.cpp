// See explain_numbers.hpp.
#include "explain_numbers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace lab::cli::explain_numbers {

using nlohmann::json;

double number(const json& counts, const char* key) { return counts.value(key, 0.0); }


namespace {

json add_counts(const json& a, const json& b)
{
    json sum = a;
    for (const auto& [key, value] : b.items()) {
        if (value.is_number()) sum[key] = sum.value(key, 0.0) + value.get<double>();
        else if (value.is_object()) {
            if (!sum[key].is_object()) sum[key] = json::object();
            for (const auto& [k, v] : value.items()) sum[key][k] = sum[key].value(k, 0.0) + v.get<double>();
        }
    }
    return sum;
}

}  // namespace

Measured measured_from(const std::string& who, const json& data)
{
    Measured m;
    m.who = who;
    m.data = data;
    m.total = json::object();
    for (const json& l : data.at("launches")) {
        m.total = add_counts(m.total, l.at("total"));
        m.grid += l.at("grid").get<double>();
    }
    return m;
}

std::string fixed(double value, int digits)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

std::string ratio(double part, double whole, int digits) { return whole > 0 ? fixed(part / whole, digits) : "-"; }

std::string megabytes(double bytes) { return fixed(bytes / 1e6, 2) + " MB"; }

// What the student's numbers say, in words, against the reference's where there is one.
std::vector<std::string> lessons(const Measured& yours, const Measured* reference, const std::string& rung_number)
{
    struct Figures {
        double lanes = 0, wavefronts = 1, sectors = 0, least = 0, warps = 0, read = 0;
    };
    const auto figures = [](const Measured& m) {
        const json& t = m.total;
        Figures f;
        if (number(t, "instructions") > 0) f.lanes = number(t, "lanes") / number(t, "instructions");
        if (number(t, "shared_requests") > 0) f.wavefronts = number(t, "shared_wavefronts") / number(t, "shared_requests");
        if (number(t, "global_requests") > 0) {
            f.sectors = number(t, "global_sectors") / number(t, "global_requests");
            f.least = number(t, "global_least_sectors") / number(t, "global_requests");
        }
        if (m.grid > 0) f.warps = number(t, "warps") / m.grid;
        f.read = number(t, "global_read");
        return f;
    };
    const Figures y = figures(yours);
    const Figures r = reference ? figures(*reference) : Figures{};
    // Whether the reference shows the same: then it is what a later rung removes, not a mistake.
    const auto too = [&](bool reference_has_it) {
        if (!reference) return std::string();
        return reference_has_it ? " The reference of rung " + rung_number + " has it too: it is not what this rung asks you to fix."
                                : " The reference of rung " + rung_number + " does not: this is yours to fix.";
    };
    std::vector<std::string> said;
    if (y.lanes > 0 && y.lanes < 16)
        said.push_back("Idle lanes: a warp instruction has " + fixed(y.lanes) +
                       " of its 32 lanes active on average. Threads that skip a step (an if on the thread index) still "
                       "hold their warp; keep the working threads together in as few warps as possible." +
                       too(r.lanes > 0 && r.lanes < 16));
    if (y.wavefronts > 1.05)
        said.push_back("Bank conflicts: each shared-memory request takes " + fixed(y.wavefronts, 2) +
                       " wavefronts, where 1 is conflict-free: lanes of a warp reach different words of the same bank "
                       "(a stride of 2 or more words). Consecutive lanes on consecutive words avoid it." +
                       too(r.wavefronts > 1.05));
    const auto scattered = [](const Figures& f) { return f.least > 0 && f.sectors > 1.25 * f.least + 0.5; };
    if (scattered(y))
        said.push_back("Scattered loads: " + fixed(y.sectors, 2) + " 32-byte sectors per device-memory request, where " +
                       fixed(y.least, 2) +
                       " would hold its bytes: lanes of a warp read far-apart addresses; consecutive threads should "
                       "read consecutive elements." +
                       too(scattered(r)));
    if (reference) {
        if (r.warps > 0 && y.warps > 1.2 * r.warps)
            said.push_back("Your blocks put " + fixed(y.warps) + " warps to work over their steps, the reference " +
                           fixed(r.warps) + ": more warps busy for the same sum.");
        if (r.read > 0 && y.read > 1.2 * r.read)
            said.push_back("Your kernel reads " + megabytes(y.read) + " of device memory where the reference reads " +
                           megabytes(r.read) + ".");
        if (said.empty() && yours.data.value("error", "").empty())
            said.push_back("Your numbers match the reference's: what rung " + rung_number + " teaches is in place.");
    } else if (said.empty()) {
        said.push_back("No idle lanes, bank conflicts or scattered loads stand out.");
    }
    return said;
}

// What changed from the previous rung's reference to this one's, per 1,000 elements: what the rung
// teaches, in numbers.
std::string since_previous(const Measured& reference, const Measured& previous, const std::string& previous_number)
{
    const double n = reference.data.at("n").get<double>(), n_before = previous.data.at("n").get<double>();
    struct Figure {
        const char* name;
        double now, before;
    };
    const auto per_k = [](const Measured& m, const char* key, double elements) { return 1000.0 * number(m.total, key) / elements; };
    const std::vector<Figure> figures = {
        {"warp instructions", per_k(reference, "instructions", n), per_k(previous, "instructions", n_before)},
        {"warps at work", per_k(reference, "warps", n), per_k(previous, "warps", n_before)},
        {"shared-memory wavefronts", per_k(reference, "shared_wavefronts", n), per_k(previous, "shared_wavefronts", n_before)},
        {"device-memory sectors", per_k(reference, "global_sectors", n), per_k(previous, "global_sectors", n_before)},
        {"__syncthreads() of a block", per_k(reference, "barriers", n), per_k(previous, "barriers", n_before)},
        {"requests to another block's shared memory (a cluster's)", per_k(reference, "distributed_requests", n),
         per_k(previous, "distributed_requests", n_before)},
        {"cluster barriers of a block", per_k(reference, "cluster_barriers", n), per_k(previous, "cluster_barriers", n_before)},
        {"warp calls", per_k(reference, "warp_syncs", n) + per_k(reference, "shuffles", n),
         per_k(previous, "warp_syncs", n_before) + per_k(previous, "shuffles", n_before)},
    };
    std::string changed;
    for (const Figure& f : figures) {
        if (std::abs(f.now - f.before) <= 0.1 * std::max(f.now, f.before) || std::max(f.now, f.before) < 0.05) continue;
        changed += std::string(changed.empty() ? "" : "; ") + f.name + " " + fixed(f.before) + " -> " + fixed(f.now);
    }
    return changed.empty() ? "" : "From rung " + previous_number + "'s reference to this rung's, per 1,000 elements: " + changed + ".";
}

std::vector<std::string> gaps(const Measured& yours, const Measured& reference,
                              const std::function<std::string(Kind)>& worst_line_of)
{
    const auto per = [](const Measured& m, const char* a, const char* b) {
        return number(m.total, b) > 0 ? number(m.total, a) / number(m.total, b) : 0.0;
    };
    const auto at = [&](Kind kind) {
        const std::string line = worst_line_of ? worst_line_of(kind) : std::string();
        return line.empty() ? std::string() : "; most at " + line;
    };
    std::vector<std::string> found;
    const double lanes = per(yours, "lanes", "instructions"), ref_lanes = per(reference, "lanes", "instructions");
    if (lanes < 0.9 * ref_lanes)
        found.push_back(fixed(lanes) + " active lanes per warp instruction, the reference " + fixed(ref_lanes) + " (idle lanes" +
                       at(Kind::idle) + ")");
    const double wavefronts = per(yours, "shared_wavefronts", "shared_requests"),
                 ref_wavefronts = per(reference, "shared_wavefronts", "shared_requests");
    if (wavefronts > 1.1 * std::max(1.0, ref_wavefronts))
        found.push_back(fixed(wavefronts, 2) + " wavefronts per shared-memory request, the reference " + fixed(ref_wavefronts, 2) +
                       " (bank conflicts" + at(Kind::conflicts) + ")");
    const double scatter = per(yours, "global_sectors", "global_least_sectors"),
                 ref_scatter = per(reference, "global_sectors", "global_least_sectors");
    if (scatter > 1.25 * std::max(1.0, ref_scatter))
        found.push_back(fixed(per(yours, "global_sectors", "global_requests"), 2) + " sectors per device-memory request where " +
                       fixed(per(yours, "global_least_sectors", "global_requests"), 2) + " would do (scattered loads" +
                       at(Kind::scattered) + ")");
    const double warps = yours.grid > 0 ? number(yours.total, "warps") / yours.grid : 0;
    const double ref_warps = reference.grid > 0 ? number(reference.total, "warps") / reference.grid : 0;
    if (ref_warps > 0 && warps > 1.2 * ref_warps)
        found.push_back(fixed(warps) + " warps at work per block, the reference " + fixed(ref_warps));
    const double read = number(yours.total, "global_read"), ref_read = number(reference.total, "global_read");
    if (ref_read > 0 && read > 1.2 * ref_read) found.push_back(megabytes(read) + " read from device memory, the reference " + megabytes(ref_read));
    // The reference's blocks read each other's shared memory (a cluster's exchange) and yours never do.
    const double remote = number(yours.total, "distributed_requests"), ref_remote = number(reference.total, "distributed_requests");
    if (ref_remote > 0 && remote == 0)
        found.push_back("no read of another block's shared memory, the reference " + fixed(ref_remote, 0) +
                        " (a cluster's blocks exchanging their partials on chip)");
    // A barrier more per block than the reference: one the lesson does without (rung 05's last warp).
    const double barriers = yours.grid > 0 ? number(yours.total, "barriers") / yours.grid : 0;
    const double ref_barriers = reference.grid > 0 ? number(reference.total, "barriers") / reference.grid : 0;
    if (ref_barriers > 0 && barriers > ref_barriers + 0.5)
        found.push_back(fixed(barriers) + " __syncthreads() per block, the reference " + fixed(ref_barriers) +
                        " (a barrier the reference does without)");
    return found;
}

namespace {

// One line of CSV: fields in double quotes, a doubled quote inside one standing for itself.
std::vector<std::string> csv_fields(const std::string& line)
{
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') field += '"', ++i;
            else if (c == '"') quoted = false;
            else field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(field);
            field.clear();
        } else if (c != '\r') {
            field += c;
        }
    }
    fields.push_back(field);
    return fields;
}

}  // namespace

nlohmann::json ncu_counters(const std::string& output, const nlohmann::json& metrics)
{
    // The CSV's lines start with a quote; ncu's own (==PROF==, ==WARNING==) and the program's do not.
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] == '"') rows.push_back(csv_fields(line));
    if (rows.size() < 3) return nlohmann::json::object();  // a header, its units, a row per kernel
    const std::vector<std::string>& head = rows[0];
    nlohmann::json sums = {{"kernels", rows.size() - 2}};
    for (const auto& [name, list] : metrics.items()) {
        double total = 0;
        for (const auto& metric : list) {
            const auto column = std::find(head.begin(), head.end(), metric.get<std::string>());
            if (column == head.end()) throw std::runtime_error("ncu's output has no column " + metric.get<std::string>());
            const auto at = static_cast<std::size_t>(column - head.begin());
            for (std::size_t r = 2; r < rows.size(); ++r) {
                std::string cell = at < rows[r].size() ? rows[r][at] : "";
                cell.erase(std::remove(cell.begin(), cell.end(), ','), cell.end());
                try {
                    total += cell.empty() ? 0.0 : std::stod(cell);
                } catch (const std::exception&) {
                    throw std::runtime_error("ncu's " + metric.get<std::string>() + " is not a number: " + cell);
                }
            }
        }
        sums[name] = total;
    }
    return sums;
}

std::string ncu_refusal(const std::string& output)
{
    if (output.find("ERR_NVGPUCTRPERM") != std::string::npos)
        return "this GPU's performance counters are not open to your user (ERR_NVGPUCTRPERM): an administrator can open "
               "them (https://developer.nvidia.com/ERR_NVGPUCTRPERM), or run ./lab explain as root";
    return "";
}

}  // namespace lab::cli::explain_numbers
