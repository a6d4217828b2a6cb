// Instructor side: writes what is derived from the solutions and the registry.
//   exercises/NN_name.cu   from solutions/NN_name.cu (see skeleton.hpp)
//   exercises/.hints/NN_name.json, the code level of ./lab hint for each TODO (lab/hints.hpp); every
//   TODO must have the registry's two other levels, or name the earlier TODOs whose code it carries
//   README.md's rung table, between <!-- rungs:begin --> and <!-- rungs:end -->
//   each handout's measured numbers, between <!-- numbers:begin --> and <!-- numbers:end -->, and the
//   overview's rung table and ladder (<!-- rungs:... -->, <!-- ladder:... -->), from the registry and
//   the committed benchmark results (handouts/benchmark/GPU/results.csv)
// With --check nothing is written; the exit status is 1 when anything is out of date, and the
// kit's self-test runs it that way so a stale exercise never ships.
// An exercise file is only ever replaced when it still holds what generate last wrote there (its
// hash in exercises/.generated): one that somebody edited (a student's solved rung) is listed and
// nothing is written, unless --force.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "lab/hints.hpp"
#include "lab/random.hpp"
#include "lab/registry.hpp"
#include "lab/speed_plan.hpp"
#include "lab/text.hpp"
#include "lab/usage_error.hpp"
#include "skeleton.hpp"

namespace {

// A file of the kit that must be there.
std::string read_or_fail(const std::string& path)
{
    auto text = lab::try_read_file(path);
    if (!text) throw lab::UsageError("cannot read " + path);
    return *text;
}

// Returns true when `path` already holds `text`; otherwise writes it (or, when checking, reports it).
bool sync_file(const std::string& path, const std::string& text, bool check)
{
    const std::optional<std::string> existing = lab::try_read_file(path);
    if (existing == text) return true;
    if (check) {
        std::cerr << "out of date: " << path << (existing ? "" : " (missing)") << '\n';
        return false;
    }
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw lab::UsageError("cannot write " + path);
    std::cout << "wrote " << path << '\n';
    return true;
}

std::string hash_of(const std::string& text)
{
    char hex[24];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(lab::fnv1a(text)));
    return hex;
}

// exercises/.generated: "HASH  NN_name.cu" for each file as generate last wrote it.
const char* kStampHeader = "# What ./lab generate last wrote to each exercise (FNV-1a 64): it replaces a file only while it\n"
                           "# still holds that, so that nobody's edits are ever overwritten.\n";

std::map<std::string, std::string> read_stamps(const std::string& path)
{
    std::map<std::string, std::string> stamps;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#' && line.size() > 18) stamps[line.substr(18)] = line.substr(0, 16);
    return stamps;
}

std::string stamps_text(const std::map<std::string, std::string>& stamps)
{
    std::string text = kStampHeader;
    for (const auto& [name, hash] : stamps) text += hash + "  " + name + "\n";
    return text;
}

// Every TODO has its three levels of hints: its own two in the registry, or, for a TODO that carries
// code, an earlier rung's TODO for each it names. Throws UsageError saying which is missing.
void check_hints(const lab::Registry& registry, const std::map<std::string, lab::Skeleton>& skeletons)
{
    std::map<std::string, std::string> rung_of;  // every TODO of every rung -> its rung's number
    for (const auto& rung : registry.rungs())
        for (const auto& todo : skeletons.at(rung.id).todos) rung_of[todo.name] = rung.number;
    for (const auto& rung : registry.rungs()) {
        const auto& todos = skeletons.at(rung.id).todos;
        for (const auto& todo : todos) {
            const std::string where = "solutions/" + rung.id + ".cu: TODO(" + todo.name + ")";
            if (todo.from.empty() && !rung.hints_for(todo.name))
                throw lab::UsageError(where + " has no hints: give it a \"concept\" and a \"shape\" under \"hints\" in "
                                      "rungs.json (levels 1 and 2 of ./lab hint; the code is level 3)");
            if (!todo.from.empty() && rung.hints_for(todo.name))
                throw lab::UsageError(where + " carries earlier code, so ./lab hint takes its hints from the TODOs it names: "
                                      "rungs.json's \"hints\" for it would never be shown");
            for (const auto& origin : todo.from)
                if (!rung_of.count(origin) || rung_of.at(origin) >= rung.number)
                    throw lab::UsageError(where + " carries code from TODO " + origin + ", which no earlier rung has");
        }
        for (const auto& hint : rung.hints)
            if (std::none_of(todos.begin(), todos.end(), [&](const lab::TodoRegion& t) { return t.name == hint.todo; }))
                throw lab::UsageError("rungs.json: rung " + rung.id + " has hints for TODO " + hint.todo +
                                      ", which solutions/" + rung.id + ".cu does not mark");
    }
}

std::string hint_code_of(const lab::RungInfo& rung, const lab::Skeleton& skeleton)
{
    std::vector<lab::HintCode> todos;
    for (const auto& todo : skeleton.todos) todos.push_back({todo.name, todo.size, todo.from, todo.code});
    return lab::hint_code_text(rung.id, todos);
}

// The ladder as a table, its handout links relative to `folder` ("handouts/" from the README, ""
// from the overview beside the handouts).
std::string rung_table(const lab::Registry& registry, const std::string& folder)
{
    std::ostringstream table;
    table << "| Rung | Technique | You write | NVIDIA's kernel (Harris's deck; cuda-samples) | Handout |\n|---|---|---|---|---|\n";
    for (const auto& rung : registry.rungs())
        table << "| " << rung.number << " | " << rung.title << " | " << rung.practises << " | "
              << (rung.seed_kernel.empty() ? "-" : rung.seed_kernel) << " | [" << rung.id << "](" << folder << rung.id
              << ".md) |\n";
    return table.str();
}

// `text` with what lies between the lines <!-- NAME:begin --> and <!-- NAME:end --> replaced by `body`.
std::string with_section(const std::string& text, const std::string& name, const std::string& body, const std::string& file)
{
    const std::string begin = "<!-- " + name + ":begin -->\n", end = "<!-- " + name + ":end -->";
    const auto b = text.find(begin), e = text.find(end);
    if (b == std::string::npos || e == std::string::npos || e < b)
        throw lab::UsageError(file + " lacks the markers <!-- " + name + ":begin --> and <!-- " + name + ":end -->");
    return text.substr(0, b + begin.size()) + body + text.substr(e);
}

// --- measured numbers, from the committed benchmark results (handouts/benchmark/GPU/results.csv) ---

struct Measured {
    std::string gpu, kernel, size;
    double ms = 0, gbps = 0, pct_ceiling = 0;
    std::string folder;  // "benchmark/h200", beside the handouts
    std::string block;   // a row kernel's block (results.csv's 12th column), "" where not given
    double ceiling_gbps = 0;  // the in-run ceiling the row was held against (the 13th column), 0 where not given
};

// Every row of every GPU's `file` (results.csv: the benchmark; rows_sweep.csv: the row-shape sweep,
// lab-bench --sweep-csv, in the same columns), the GPUs in folder order (h100, h200).
std::vector<Measured> read_benchmarks(const std::string& root, const std::string& file = "results.csv")
{
    std::vector<std::string> folders;
    const std::string dir = root + "/handouts/benchmark";
    if (std::filesystem::exists(dir))
        for (const auto& entry : std::filesystem::directory_iterator(dir))
            if (std::filesystem::exists(entry.path() / file)) folders.push_back(entry.path().string());
    std::sort(folders.begin(), folders.end());
    std::vector<Measured> rows;
    for (const std::string& folder : folders) {
        std::istringstream lines(read_or_fail(folder + "/" + file));
        std::string line;
        std::getline(lines, line);
        if (line.rfind("gpu,kernel,size,dtype,n,bytes,median_ms,min_ms,gbps,pct_ceiling", 0) != 0)
            throw lab::UsageError(folder + "/" + file + " does not start with lab-bench's header");
        while (std::getline(lines, line)) {
            const auto f = lab::csv_fields(line);
            if (f.size() < 10) throw lab::UsageError(folder + "/" + file + ": a short line: " + line);
            rows.push_back({f[0], f[1], f[2], std::stod(f[6]), std::stod(f[8]), std::stod(f[9]),
                            "benchmark/" + std::filesystem::path(folder).filename().string(),
                            f.size() > 11 && f[11] != "0" ? f[11] : "",
                            f.size() > 12 ? std::stod(f[12]) : 0.0});
        }
    }
    return rows;
}

std::string fixed(double v, int digits)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", digits, v);
    return text;
}

const Measured* find_measured(const std::vector<Measured>& rows, const std::string& gpu, const std::string& kernel,
                              const std::string& size)
{
    for (const auto& r : rows)
        if (r.gpu == gpu && r.kernel == kernel && r.size == size) return &r;
    return nullptr;
}

// A handout's GPU figures ("### On the GPUs", inside its "What the kit measured"): this rung's rows of
// every GPU's results, as tables. Written by generate, never by hand, so that a figure in a handout is
// always one the benchmark measured.
// "Every rung, ... with plots: [GPU](benchmark/x/results.md), ..." for every GPU measured; `from` is
// the path from the page to handouts/ ("" in a handout, "handouts/" in the README).
std::string full_tables(const std::vector<Measured>& rows, const std::string& from = "")
{
    std::string links;
    for (const auto& r : rows)
        if (links.find("(" + from + r.folder + "/") == std::string::npos)
            links += (links.empty() ? "" : ", ") + std::string("[") + r.gpu + "](" + from + r.folder + "/results.md)";
    return links.empty() ? "" : "\nEvery rung, CUB and the CPU at every size, with plots: " + links + ".\n";
}

// The GPUs measured, in the order of their rows.
std::vector<std::string> measured_gpus(const std::vector<Measured>& rows)
{
    std::vector<std::string> gpus;
    for (const auto& r : rows)
        if (std::find(gpus.begin(), gpus.end(), r.gpu) == gpus.end()) gpus.push_back(r.gpu);
    return gpus;
}

// The rungs' kernels (a driver rung's, one per scheme) measured as a reduction of 2^28 floats, in
// ladder order: every kernel that reduces an array.
std::vector<std::string> ladder_kernels(const std::vector<Measured>& rows, const lab::Registry& registry)
{
    std::vector<std::string> kernels;
    for (const auto& rung : registry.rungs())
        for (const auto& r : rows)
            if ((r.kernel == rung.id || r.kernel.rfind(rung.id + "/", 0) == 0) && r.size == "2^28" &&
                std::find(kernels.begin(), kernels.end(), r.kernel) == kernels.end())
                kernels.push_back(r.kernel);
    return kernels;
}

// The overview's ladder: every rung's (or scheme's) GB/s at 2^28 floats on each GPU measured, against
// rung 01 and CUB, then CUB's and the ceiling.
std::string ladder_section(const std::vector<Measured>& rows, const lab::Registry& registry)
{
    const std::vector<std::string> gpus = measured_gpus(rows);
    std::ostringstream md;
    if (gpus.empty()) return "Not measured on a GPU yet: `./lab bench` on a GPU machine, then `./lab generate`.\n";
    md << "GB/s of a full reduction of 2^28 floats to one value (median of 20 runs, L2 flushed before each), and how many "
          "times faster than rung 01 and than CUB, from handouts/benchmark/GPU/results.csv:\n\n| rung |";
    for (const auto& gpu : gpus) md << ' ' << gpu << " GB/s | x 01 | x CUB |";
    md << "\n|---|";
    for (std::size_t i = 0; i < gpus.size(); ++i) md << "---:|---:|---:|";
    md << '\n';
    std::vector<std::string> kernels = ladder_kernels(rows, registry);
    kernels.push_back("cub");
    for (const auto& kernel : kernels) {
        md << "| " << kernel << " |";
        for (const auto& gpu : gpus) {
            const auto* m = find_measured(rows, gpu, kernel, "2^28");
            const auto* first = find_measured(rows, gpu, registry.rungs().front().id, "2^28");
            const auto* cub = find_measured(rows, gpu, "cub", "2^28");
            md << ' ' << (m ? fixed(m->gbps, 0) : "-") << " | " << (m && first ? fixed(first->ms / m->ms, 2) + "x" : "-")
               << " | " << (m && cub ? fixed(cub->ms / m->ms, 2) + "x" : "-") << " |";
        }
        md << '\n';
    }
    md << "\nRungs not in the table have not been measured on a GPU yet. The row rungs (12, 13) compute rows, not "
          "one sum: their figures are in their handouts.\n" << full_tables(rows);
    return md.str();
}

// A row rung's row-shape sweep (rows_sweep.csv): each of its kernels as a share of the in-run ceiling
// at every shape, a row per GPU and kernel, in the sweep's order; "" where the rung is not in it.
// Rung 12's and CUB's rows are in each GPU's results.md and the sweep's plot.
std::string sweep_table(const std::vector<Measured>& sweep, const lab::RungInfo& rung)
{
    std::vector<std::string> shapes, kernels;
    for (const auto& r : sweep) {
        if (r.kernel.rfind(rung.id + "/", 0) != 0) continue;
        if (std::find(shapes.begin(), shapes.end(), r.size) == shapes.end()) shapes.push_back(r.size);
        if (std::find(kernels.begin(), kernels.end(), r.kernel) == kernels.end()) kernels.push_back(r.kernel);
    }
    if (kernels.empty()) return "";
    // "16x1048576" as "16 x 2^20": a row of more than 16384 floats by its power of two, if it is one.
    const auto shown = [](const std::string& shape) {
        const std::size_t x = shape.find('x');
        if (x == std::string::npos) return shape;
        const std::string rows = shape.substr(0, x), cols = shape.substr(x + 1);
        const unsigned long long c = std::stoull(cols);
        if (c > 16384 && (c & (c - 1)) == 0) return rows + " x 2^" + std::to_string(__builtin_ctzll(c));
        return rows + " x " + cols;
    };
    std::ostringstream md;
    md << "Share of the in-run ceiling (a read for dot, a copy for the others) at 2^24 floats, median of 10 runs, "
          "L2 flushed (handouts/benchmark/GPU/rows_sweep.csv):\n";
    for (const auto& gpu : measured_gpus(sweep)) {
        std::ostringstream table;
        bool any = false;
        for (const auto& kernel : kernels) {
            std::string line = "| " + kernel.substr(kernel.find('/') + 1) + " |";
            bool measured = false;
            for (const auto& shape : shapes) {
                const auto* m = find_measured(sweep, gpu, kernel, shape);
                measured |= m != nullptr;
                line += ' ' + (m ? fixed(m->pct_ceiling, 0) + "%" : std::string("-")) + " |";
            }
            if (measured) table << line << '\n';
            any |= measured;
        }
        if (!any) continue;
        md << "\n" << gpu << ":\n\n| kernel |";
        for (const auto& shape : shapes) md << ' ' << shown(shape) << " |";
        md << "\n|---|";
        for (std::size_t i = 0; i < shapes.size(); ++i) md << "---:|";
        md << '\n' << table.str();
    }
    return md.str();
}

std::string numbers_section(const std::vector<Measured>& rows, const std::vector<Measured>& sweep,
                            const lab::Registry& registry, const lab::RungInfo& rung, const lab::SpeedPlan& speed)
{
    std::vector<std::string> kernels, gpus;
    for (const auto& r : rows) {
        if (r.kernel != rung.id && r.kernel.rfind(rung.id + "/", 0) != 0) continue;
        if (std::find(kernels.begin(), kernels.end(), r.kernel) == kernels.end()) kernels.push_back(r.kernel);
        if (std::find(gpus.begin(), gpus.end(), r.gpu) == gpus.end()) gpus.push_back(r.gpu);
    }
    std::ostringstream md;
    md << "### On the GPUs\n\n";
    if (kernels.empty()) {
        if (const std::string table = sweep_table(sweep, rung); !table.empty()) return md.str() + table + full_tables(rows);
        md << "Not measured on a GPU yet. `./lab bench` on a GPU machine writes `handouts/benchmark/GPU/results.csv`, "
              "and `./lab generate` then puts this rung's figures here.\n";
        return md.str() + full_tables(rows);
    }
    const lab::RungInfo* before = nullptr;
    for (const auto& r : registry.rungs()) {
        if (r.id == rung.id) break;
        before = &r;
    }
    // A driver rung is measured per scheme: the one its speed test times stands for it.
    const lab::SpeedPlan::Case* timed = before ? speed.find(before->id) : nullptr;
    const std::string scheme = timed ? timed->scheme : "";
    const std::string previous_kernel = before ? before->id + (scheme.empty() ? "" : "/" + scheme) : "";
    bool rows_rung = false;
    for (const auto& r : rows) rows_rung |= std::find(kernels.begin(), kernels.end(), r.kernel) != kernels.end() &&
                                            r.size.find('x') != std::string::npos;
    if (rows_rung) {
        md << "Each kernel over a matrix of floats, one block per row, median of 20 timed runs with L2 flushed, "
              "against the in-run ceiling for the bytes it must move, measured over as many bytes "
              "(handouts/benchmark/GPU/results.csv):\n\n"
              "| GPU | kernel | matrix | block | ms | GB/s | of the ceiling |\n|---|---|---|---:|---:|---:|---:|\n";
        for (const auto& gpu : gpus)
            for (const auto& r : rows)
                if (r.gpu == gpu && std::find(kernels.begin(), kernels.end(), r.kernel) != kernels.end())
                    md << "| " << gpu << " | " << r.kernel.substr(r.kernel.find('/') + 1) << " | " << r.size << " | "
                       << (r.block.empty() ? "-" : r.block) << " | " << fixed(r.ms, 3) << " | " << fixed(r.gbps, 0)
                       << " | " << fixed(r.pct_ceiling, 0) << "% |\n";
        return md.str() + full_tables(rows);
    }
    md << "GB/s of a full reduction of floats to one value (the input's bytes over the time; the median of 20 timed "
          "runs or more, as each GPU's results.md says, L2 flushed before each; handouts/benchmark/GPU/results.csv). "
          "*Of the ceiling*: against the faster of the kit's streaming read and a device-to-device copy over 1 GiB in "
          "the same run; above 100% is faster than that kernel, not than the memory. "
       << (before ? "The last two columns: how many times faster at 2^28 floats than rung " + before->id +
                        (scheme.empty() ? "" : " (its " + scheme + " scheme)") + " and than CUB's DeviceReduce::Sum.\n\n"
                  : std::string("The last column: how many times faster at 2^28 floats than CUB's DeviceReduce::Sum.\n\n"))
       << "| GPU | kernel | 2^20 | 2^24 | 2^28 | of the ceiling at 2^28 |" << (before ? " x " + before->number + " |" : "")
       << " x CUB |\n|---|---|---:|---:|---:|---:|" << (before ? "---:|" : "") << "---:|\n";
    for (const auto& gpu : gpus)
        for (const auto& kernel : kernels) {
            const auto* big = find_measured(rows, gpu, kernel, "2^28");
            if (!big) continue;
            md << "| " << gpu << " | " << kernel << " |";
            for (const char* size : {"2^20", "2^24", "2^28"}) {
                const auto* m = find_measured(rows, gpu, kernel, size);
                md << ' ' << (m ? fixed(m->gbps, 0) : "-") << " |";
            }
            const auto* previous = before ? find_measured(rows, gpu, previous_kernel, "2^28") : nullptr;
            const auto* cub = find_measured(rows, gpu, "cub", "2^28");
            md << ' ' << fixed(big->pct_ceiling, 0) << "% |";
            if (before) md << ' ' << (previous ? fixed(previous->ms / big->ms, 2) + "x" : "-") << " |";
            md << ' ' << (cub ? fixed(cub->ms / big->ms, 2) + "x" : "-") << " |\n";
        }
    return md.str() + full_tables(rows);
}

}  // namespace

int main(int argc, char** argv)
{
    bool check = false, force = false;
    std::string root = LAB_SOURCE_DIR;
    CLI::App app{"lab-generate: writes exercises/ from solutions/ and README.md's rung table from rungs.json"};
    app.add_flag("--check", check, "only compare, and exit 1 when anything is out of date");
    app.add_flag("--force", force, "replace exercise files that were edited since generate wrote them");
    app.add_option("--root", root, "the kit's folder")->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return e.get_exit_code() == 0 ? 0 : 2;
    }
    try {
        const auto registry = lab::Registry::load(root + "/rungs.json");
        bool in_sync = true;
        const std::string stamp_path = root + "/exercises/.generated";
        const auto stamps = read_stamps(stamp_path);
        std::map<std::string, std::string> written, skeletons;
        std::map<std::string, lab::Skeleton> made;  // by rung id
        std::vector<std::string> edited;
        for (const auto& rung : registry.rungs()) {
            const std::string solution = "solutions/" + rung.id + ".cu", name = rung.id + ".cu";
            made.emplace(rung.id, lab::make_skeleton(read_or_fail(root + "/" + solution), solution, rung.number));
            skeletons[name] = made.at(rung.id).text;
            written[name] = hash_of(skeletons[name]);
            const std::string path = root + "/exercises/" + name;
            if (!std::filesystem::exists(path)) continue;
            const std::string current = hash_of(read_or_fail(path));
            if (current != written[name] && (!stamps.count(name) || stamps.at(name) != current)) edited.push_back(name);
        }
        check_hints(registry, made);
        if (!edited.empty() && !check && !force) {
            std::cerr << "lab-generate: nothing written: these exercise files were edited since ./lab generate wrote them,\n"
                         "and writing would lose the edits:\n";
            for (const std::string& name : edited) std::cerr << "  exercises/" << name << '\n';
            std::cerr << "Keep a copy of what you want of them (or commit it), then run ./lab generate --force.\n";
            return 1;
        }
        for (const auto& rung : registry.rungs())
            in_sync &= sync_file(root + "/exercises/" + rung.id + ".cu", skeletons.at(rung.id + ".cu"), check);
        in_sync &= sync_file(stamp_path, stamps_text(written), check);
        if (!check) std::filesystem::create_directories(root + "/exercises/.hints");
        for (const auto& rung : registry.rungs())
            in_sync &= sync_file(lab::hint_code_path(root, rung.id), hint_code_of(rung, made.at(rung.id)), check);
        const auto measured = read_benchmarks(root);
        const auto sweep = read_benchmarks(root, "rows_sweep.csv");
        in_sync &= sync_file(root + "/README.md",
                             with_section(read_or_fail(root + "/README.md"), "rungs", rung_table(registry, "handouts/"), "README.md"),
                             check);
        const std::string speed_path = root + "/tests/speed.json";
        const auto speed = lab::SpeedPlan::parse(read_or_fail(speed_path), speed_path);
        const std::string overview = root + "/handouts/overview.md";
        in_sync &= sync_file(overview,
                             with_section(with_section(read_or_fail(overview), "rungs", rung_table(registry, ""), "handouts/overview.md"),
                                          "ladder", ladder_section(measured, registry), "handouts/overview.md"),
                             check);
        for (const auto& rung : registry.rungs()) {
            const std::string handout = root + "/handouts/" + rung.id + ".md";
            in_sync &= sync_file(handout, with_section(read_or_fail(handout), "numbers", numbers_section(measured, sweep, registry, rung, speed),
                                                       "handouts/" + rung.id + ".md"),
                                 check);
        }
        if (!in_sync) std::cerr << "run ./lab generate to bring them up to date from solutions/ and rungs.json\n";
        return in_sync ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "lab-generate: " << e.what() << '\n';
        return 2;
    }
}
