// ./lab explain [NN] [--n N] [--block B] [--json FILE]: why a kernel is slow, measured on the
// student's own code. Runs the student's exercises/NN_name.cu once on the CPU backend with every
// memory access measured (lab/cpu/explain.hpp; the programs are lab-explain-NN, harness/explain),
// and beside it the rung's reference and the previous rung's reference where the kit has them:
// active lanes per warp instruction, warps at work, shared-memory wavefronts per request (bank
// conflicts), device-memory sectors per request and bytes, barriers and warp calls; step by step
// for the student's kernel, the source lines that cost the most, and what the numbers say.
// The CPU backend, GPU or not: the numbers are the kit's model of a GPU, not a GPU's counters.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "explain_numbers.hpp"
#include "kit.hpp"
#include "lab/process.hpp"
#include "lab/shape.hpp"
#include "lab/todos.hpp"
#include "progress.hpp"

namespace lab::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace explain_numbers;

constexpr const char* kPreset = "cpu-exercises";

Measured measure(const Kit& kit, const std::string& who, const std::string& program, const std::vector<std::string>& args)
{
    const std::string out = kit.tree(kPreset) + "/explain/" + fs::path(program).filename().string() + ".json";
    fs::create_directories(fs::path(out).parent_path());
    fs::remove(out);
    std::vector<std::string> command{kit.program(kPreset, program), "--json", out};
    command.insert(command.end(), args.begin(), args.end());
    process::Options options;
    options.output = out + ".log";
    const int code = process::exit_code(process::run(command, options));
    json data;
    try {
        data = json::parse(read_file(out));
    } catch (const std::exception&) {
        throw Failure(program + " measured nothing (exit " + std::to_string(code) + "); its output: " + out + ".log", 1);
    }
    Measured m = measured_from(who, data);
    m.file = out;
    return m;
}

bool has_op(const RungInfo& rung, const std::string& op)
{
    return std::any_of(rung.ops.begin(), rung.ops.end(), [&](Op o) { return name_of(o) == op; });
}

// The rows of the comparison: a name and each measurement's value.
struct Row {
    std::string name;
    std::function<std::string(const Measured&)> value;
};

const std::vector<Row>& rows()
{
    static const std::vector<Row> r = {
        {"launches", [](const Measured& m) { return std::to_string(m.data.at("launches").size()); }},
        {"active lanes per warp instruction (of 32)",
         [](const Measured& m) { return ratio(number(m.total, "lanes"), number(m.total, "instructions"), 1); }},
        {"warps at work per block, over its steps", [](const Measured& m) { return ratio(number(m.total, "warps"), m.grid, 1); }},
        {"shared memory: requests per block", [](const Measured& m) { return ratio(number(m.total, "shared_requests"), m.grid, 1); }},
        {"shared memory: wavefronts per request",
         [](const Measured& m) { return ratio(number(m.total, "shared_wavefronts"), number(m.total, "shared_requests")); }},
        {"  the fewest its words fit in (no bank conflict)",
         [](const Measured& m) { return ratio(number(m.total, "shared_least_wavefronts"), number(m.total, "shared_requests")); }},
        {"device memory: sectors per request",
         [](const Measured& m) { return ratio(number(m.total, "global_sectors"), number(m.total, "global_requests")); }},
        {"  the fewest its bytes fit in (coalesced)",
         [](const Measured& m) { return ratio(number(m.total, "global_least_sectors"), number(m.total, "global_requests")); }},
        {"device memory: read", [](const Measured& m) { return megabytes(number(m.total, "global_read")); }},
        {"device memory: written", [](const Measured& m) { return megabytes(number(m.total, "global_written")); }},
        {"__syncthreads() per block", [](const Measured& m) { return ratio(number(m.total, "barriers"), m.grid, 1); }},
        {"warp calls (__syncwarp, shuffles)",
         [](const Measured& m) { return fixed(number(m.total, "warp_syncs") + number(m.total, "shuffles"), 0); }},
    };
    return r;
}

// file:line of each code address of the sites, by addr2line (one call per module); "" where it
// cannot say.
std::map<std::pair<std::string, unsigned long long>, std::string> source_lines(const std::vector<const json*>& sites,
                                                                               const std::string& scratch)
{
    std::map<std::string, std::vector<unsigned long long>> by_module;
    for (const json* site : sites)
        if (!site->value("module", "").empty()) by_module[site->value("module", "")].push_back(site->value("offset", 0ull));
    std::map<std::pair<std::string, unsigned long long>, std::string> lines;
    for (const auto& [module, offsets] : by_module) {
        std::vector<std::string> command{"addr2line", "-e", module};
        for (const unsigned long long offset : offsets) {
            char text[32];
            std::snprintf(text, sizeof text, "0x%llx", offset);
            command.push_back(text);
        }
        process::Options options;
        options.search_path = true;
        options.output = scratch;
        if (process::exit_code(process::run(command, options)) != 0) continue;
        std::istringstream out(read_file(scratch));
        std::string line;
        for (const unsigned long long offset : offsets) {
            if (!std::getline(out, line)) break;
            if (const auto at = line.find(" (discriminator"); at != std::string::npos) line.erase(at);
            lines[{module, offset}] = line.empty() || line[0] == '?' ? "" : line;
        }
    }
    return lines;
}

void print_steps(const Measured& yours)
{
    // The launch with the most steps (a tree), each of its steps.
    const json* launch = nullptr;
    for (const json& l : yours.data.at("launches"))
        if (!launch || l.at("steps").size() > launch->at("steps").size()) launch = &l;
    if (!launch) return;
    const double grid = launch->at("grid").get<double>();
    std::printf("\nStep by step, yours (%s, %g blocks; a step ends at a __syncthreads()):\n",
                launch->at("kernel").get<std::string>().c_str(), grid);
    std::printf("  %4s  %13s  %11s  %15s  %15s  %20s\n", "step", "warps/block", "lanes/instr", "shared req/blk",
                "wavefronts/req", "sectors/req (fewest)");
    int k = 0;
    for (const json& s : launch->at("steps")) {
        if (k == 24) {
            std::printf("  ... (%zu steps in all)\n", launch->at("steps").size());
            break;
        }
        std::printf("  %4d  %13s  %11s  %15s  %15s  %20s\n", k++, ratio(number(s, "warps"), grid, 1).c_str(),
                    ratio(number(s, "lanes"), number(s, "instructions"), 1).c_str(),
                    ratio(number(s, "shared_requests"), grid, 1).c_str(),
                    ratio(number(s, "shared_wavefronts"), number(s, "shared_requests")).c_str(),
                    (number(s, "global_requests") > 0 ? ratio(number(s, "global_sectors"), number(s, "global_requests")) + " of " +
                                                             ratio(number(s, "global_least_sectors"), number(s, "global_requests"))
                                                       : std::string("-"))
                        .c_str());
    }
}

// What each line of the student's file cost: wavefronts beyond one per shared request, sectors
// beyond the fewest, lane slots idle in its warp instructions (the kit's own code left out).
struct Costly {
    double excess = 0, sectors = 0, idle = 0;
    std::string line;  // "exercises/03_sequential.cu:28"
    double cost() const { return excess + sectors + idle; }
};

std::vector<Costly> costly_lines(const Measured& yours, const std::string& exercise, const std::string& scratch)
{
    std::map<std::string, Costly> by_line;
    std::vector<const json*> sites;
    for (const json& l : yours.data.at("launches"))
        for (const json& site : l.at("sites")) sites.push_back(&site);
    const auto lines_of = source_lines(sites, scratch);
    for (const json& l : yours.data.at("launches"))
        for (const json& site : l.at("sites")) {
            const json& c = site.at("counts");
            const auto found = lines_of.find({site.value("module", ""), site.value("offset", 0ull)});
            std::string line = found == lines_of.end() ? "" : found->second;
            if (line.find(fs::path(exercise).filename().string()) == std::string::npos) continue;  // the kit's own code
            if (const auto at = line.find("exercises/"); at != std::string::npos) line = line.substr(at);
            Costly& k = by_line[line];
            k.line = line;
            k.excess += number(c, "shared_wavefronts") - number(c, "shared_least_wavefronts");
            k.sectors += number(c, "global_sectors") - number(c, "global_least_sectors");
            k.idle += 32 * number(c, "instructions") - number(c, "lanes");
        }
    std::vector<Costly> lines;
    for (auto& [line, c] : by_line) lines.push_back(c);
    std::sort(lines.begin(), lines.end(), [](const Costly& a, const Costly& b) { return a.cost() > b.cost(); });
    return lines;
}

// The line that costs the most of one kind (a member of Costly); "" when none costs any.
std::string worst_line(const std::vector<Costly>& lines, double Costly::*kind)
{
    const Costly* worst = nullptr;
    for (const Costly& c : lines)
        if (c.*kind > 0 && (!worst || c.*kind > worst->*kind)) worst = &c;
    return worst ? worst->line : "";
}

void print_costly_lines(const std::vector<Costly>& lines)
{
    if (lines.empty() || lines.front().cost() <= 0) return;
    std::printf("\nYour lines that cost the most: shared-memory wavefronts beyond the fewest (bank conflicts), sectors\n"
                "beyond the fewest (scattered loads), lane slots left idle in warp instructions:\n");
    std::printf("  %-36s %18s %18s %18s\n", "", "extra wavefronts", "extra sectors", "idle lane slots");
    for (std::size_t i = 0; i < lines.size() && i < 4; ++i) {
        if (lines[i].cost() <= 0) break;
        std::printf("  %-36s %18.0f %18.0f %18.0f\n", lines[i].line.c_str(), lines[i].excess, lines[i].sectors, lines[i].idle);
    }
}

// Nsight Compute: LAB_NCU, else ncu on the PATH or in the CUDA Toolkit; "" where there is none.
std::string find_ncu()
{
    if (const char* chosen = std::getenv("LAB_NCU"); chosen && *chosen) return chosen;
    if (std::string found = process::find_program("ncu"); !found.empty()) return found;
    for (const char* candidate : {"/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu"})
        if (access(candidate, X_OK) == 0) return candidate;
    return "";
}

// On a machine with a GPU: each measured kernel launched once more on the GPU (lab-explain-NN of
// the CUDA tree, the grid the model measured) under Nsight Compute, its counters
// (harness/explain/explain_counters.json) kept in the measurement's "gpu" and printed beside the model's.
// Says in one line, and carries on, where ncu is missing or its counters are denied.
void measure_on_gpu(const Kit& kit, const RungInfo& rung, std::vector<Measured>& measured,
                    const std::vector<std::string>& programs, const std::vector<std::string>& args)
{
    const std::string preset = kit.preset_for("exercises");
    if (kit.is_cpu(preset)) return;  // no GPU here: the model alone
    const std::string ncu = find_ncu();
    if (ncu.empty()) {
        std::printf("\nOn this GPU: Nsight Compute (ncu) is not installed, so only the model's numbers are shown; it comes with the\n"
                    "CUDA Toolkit (or set LAB_NCU to its path).\n");
        return;
    }
    kit.build_quietly(preset, programs, kit.tree(preset) + "/build-explain-" + rung.id + ".log");
    const json metrics = json::parse(read_file(kit.root + "/harness/explain/explain_counters.json")).at("metrics");
    std::string list;
    for (const auto& [name, names] : metrics.items())
        for (const auto& m : names) list += (list.empty() ? "" : ",") + m.get<std::string>();
    for (std::size_t k = 0; k < measured.size(); ++k) {
        const std::string out = kit.tree(preset) + "/explain/" + programs[k] + ".ncu.txt";
        fs::create_directories(fs::path(out).parent_path());
        std::vector<std::string> command{ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
                                         "--metrics", list, kit.program(preset, programs[k])};
        command.insert(command.end(), args.begin(), args.end());
        if (rung.shape->sizes_grid_to_device()) command.insert(command.end(), {"--grid", measured[k].data.at("grid").dump()});
        command.insert(command.end(), {"--json", out + ".json"});
        process::Options options;
        options.output = out;
        const int code = process::exit_code(process::run(command, options));
        const std::string text = read_file(out);
        if (const std::string refused = ncu_refusal(text); !refused.empty()) {
            std::printf("\nOn this GPU: %s. The numbers above are the model's.\n", refused.c_str());
            return;
        }
        json counted;
        try {
            counted = ncu_counters(text, metrics);
        } catch (const std::exception& e) {
            std::printf("\nOn this GPU: ncu's output could not be read (%s; all of it: %s). The numbers above are the model's.\n",
                        e.what(), out.c_str());
            return;
        }
        if (code != 0 || counted.empty()) {
            std::printf("\nOn this GPU: ncu counted nothing (exit %d; its output: %s). The numbers above are the model's.\n", code,
                        out.c_str());
            return;
        }
        measured[k].data["gpu"] = counted;
    }
    std::printf("\nOn this GPU, Nsight Compute's counters for the same launches beside the model's (they agree within a few\n"
                "percent for the kit's references: tests/kit/explain_gpu_test.py; DRAM writes stay in the L2 cache at this size):\n");
    std::printf("  %-40s", "");
    for (const Measured& m : measured) std::printf(" %14s %9s", (m.who + " model").c_str(), "GPU");
    std::printf("\n");
    // Each row: the model's figure and the GPU's, from one measurement (its counters in "gpu").
    const auto row = [&](const char* name, const std::function<std::string(const Measured&)>& model,
                         const std::function<std::string(const Measured&, const json&)>& gpu) {
        std::printf("  %-40s", name);
        for (const Measured& m : measured) std::printf(" %14s %9s", model(m).c_str(), gpu(m, m.data.at("gpu")).c_str());
        std::printf("\n");
    };
    const auto g = [](const json& c, const char* key) { return c.value(key, 0.0); };
    row("shared memory: requests per block", [](const Measured& m) { return ratio(number(m.total, "shared_requests"), m.grid, 1); },
        [&](const Measured& m, const json& c) { return ratio(g(c, "shared_requests"), m.grid, 1); });
    row("  wavefronts per request", [](const Measured& m) { return ratio(number(m.total, "shared_wavefronts"), number(m.total, "shared_requests")); },
        [&](const Measured&, const json& c) { return ratio(g(c, "shared_wavefronts"), g(c, "shared_requests")); });
    row("device memory: sectors per request", [](const Measured& m) { return ratio(number(m.total, "global_sectors"), number(m.total, "global_requests")); },
        [&](const Measured&, const json& c) { return ratio(g(c, "global_sectors"), g(c, "global_requests")); });
    row("  read (DRAM on the GPU)", [](const Measured& m) { return megabytes(number(m.total, "global_read")); },
        [&](const Measured&, const json& c) { return megabytes(g(c, "dram_read")); });
    row("warps active (of the most an SM holds)", [](const Measured&) { return std::string("-"); },
        [&](const Measured&, const json& c) { return fixed(g(c, "warps_active_percent"), 0) + "%"; });
    row("time", [](const Measured&) { return std::string("-"); },
        [&](const Measured&, const json& c) { return fixed(g(c, "nanoseconds") / 1000, 1) + " us"; });
}

}  // namespace

bool has_reference(const Kit& kit, const RungInfo& rung)
{
    return !kit.is_release() && fs::exists(kit.root + "/solutions/" + rung.id + ".cu");
}

std::vector<std::string> lesson_gaps(const Kit& kit, const RungInfo& rung)
{
    if (!has_reference(kit, rung)) return {};
    if (!find_todos(exercise_file(kit, rung)).empty()) return {};
    kit.build_quietly(kPreset, {"lab-explain-" + rung.id, "lab-explain-reference-" + rung.id},
                      kit.tree(kPreset) + "/build-explain-" + rung.id + ".log");
    const Measured yours = measure(kit, "yours", "lab-explain-" + rung.id, {});
    const Measured reference = measure(kit, "reference", "lab-explain-reference-" + rung.id, {});
    const std::vector<Costly> lines = costly_lines(yours, exercise_file(kit, rung), kit.tree(kPreset) + "/explain/addr2line.txt");
    std::vector<std::string> found = gaps(yours, reference, [&](Kind kind) {
        return worst_line(lines, kind == Kind::idle ? &Costly::idle : kind == Kind::conflicts ? &Costly::excess : &Costly::sectors);
    });
    // A rung whose lesson shows at another shape (rungs.json "lessons_at": rung 13's cluster, at one
    // long row) is measured there too, as the grader measures it.
    if (!rung.lessons_at.empty()) {
        const Measured yours_there = measure(kit, "yours", "lab-explain-" + rung.id, rung.lessons_at);
        const Measured reference_there = measure(kit, "reference", "lab-explain-reference-" + rung.id, rung.lessons_at);
        if (yours_there.data.value("error", "").empty() && reference_there.data.value("error", "").empty())
            for (const std::string& gap : gaps(yours_there, reference_there, {})) found.push_back(rung.lessons_at_what + ": " + gap);
    }
    return found;
}

int explain(const Kit& kit, const std::string& key, const std::string& n, const std::string& block, const std::string& op,
            const std::string& json_out, const std::string& html_out)
{
    const RungInfo* rung = key.empty() ? current_rung(kit) : &Registry::kit().get(key);
    if (!rung) {
        say("Every rung is done: ./lab explain NN measures any of them.");
        return 0;
    }
    // Sizes it cannot run: one line, exit 2, before anything is built.
    const auto whole_number = [](const std::string& text, const char* what) {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 12)
            throw Failure(std::string("--") + what + " " + text + ": give a whole number", 2);
        return std::stoull(text);
    };
    if (!n.empty()) {
        const auto value = whole_number(n, "n");
        if (value < 1 || value > (1ull << 24))
            throw Failure("--n " + n + ": from 1 to 2^24 (16777216) elements on the CPU backend", 2);
    }
    if (!op.empty() && !has_op(*rung, op)) {
        std::vector<std::string> ops;
        for (const Op o : rung->ops) ops.emplace_back(name_of(o));
        throw Failure("--op " + op + ": rung " + rung->id + " has " + joined(ops), 2);
    }
    if (!block.empty() && !rung->block.allows(static_cast<unsigned>(whole_number(block, "block"))))
        throw Failure("--block " + block + ": rung " + rung->id + " runs with " + rung->block.describe() + " threads per block", 2);
    const std::string exercise = exercise_file(kit, *rung);
    if (const auto todos = find_todos(exercise); !todos.empty() && !todos_ignored()) {
        std::cout << describe_todos("exercises/" + rung->id + ".cu", todos, rung->number) << "\n";
        return 1;
    }
    kit.require_toolchain();
    const auto& all = Registry::kit().rungs();
    const auto here = std::find_if(all.begin(), all.end(), [&](const RungInfo& r) { return r.id == rung->id; });
    const RungInfo* previous = here == all.begin() ? nullptr : &*(here - 1);
    // The previous rung beside it only where it has the same operator (rung 11 has no softmax).
    if (previous && !op.empty() && !has_op(*previous, op)) previous = nullptr;
    const bool references = has_reference(kit, *rung);
    std::vector<std::string> targets{"lab-explain-" + rung->id};
    if (references) {
        targets.push_back("lab-explain-reference-" + rung->id);
        if (previous) targets.push_back("lab-explain-reference-" + previous->id);
    }
    kit.build_quietly(kPreset, targets, kit.tree(kPreset) + "/build-explain-" + rung->id + ".log");
    std::vector<std::string> args;
    if (!n.empty()) args.insert(args.end(), {"--n", n});
    if (!block.empty()) args.insert(args.end(), {"--block", block});
    if (!op.empty()) args.insert(args.end(), {"--op", op});
    std::vector<Measured> measured{measure(kit, "yours", "lab-explain-" + rung->id, args)};
    std::vector<std::string> programs{"lab-explain-" + rung->id};
    if (references) {
        measured.push_back(measure(kit, "reference " + rung->number, "lab-explain-reference-" + rung->id, args));
        programs.push_back("lab-explain-reference-" + rung->id);
        if (previous) {
            measured.push_back(measure(kit, "reference " + previous->number, "lab-explain-reference-" + previous->id, args));
            programs.push_back("lab-explain-reference-" + previous->id);
        }
    }
    const Measured& yours = measured.front();
    const json& d = yours.data;
    if (!d.value("instrumented", false))
        throw Failure("lab-explain-" + rung->id + " ran no instrumented code: its build lost the explain flags (see " +
                      kit.tree(kPreset) + "/build-explain-" + rung->id + ".log)");
    std::printf("%s: %s, measured on the CPU backend: n = %s, blocks of %s (%s), op %s\n", rung->id.c_str(),
                exercise.substr(kit.root.size() + 1).c_str(), d.at("n").dump().c_str(), d.at("block").dump().c_str(),
                d.value("variant", "").empty() ? (d.at("grid").dump() + " blocks").c_str()
                                               : ("scheme " + d.value("variant", "")).c_str(),
                d.value("op", "").c_str());
    std::printf("The kit's model of a GPU from every load and store of your code (cpu_backend/CPU_BACKEND.md, \"Measuring a kernel\"),\n"
                "not a GPU's counters. Memory instructions only; a thread's local variables are registers.\n\n");
    std::printf("  %-66s", "");
    for (const Measured& m : measured) std::printf(" %16s", m.who.c_str());
    std::printf("\n");
    for (const Row& row : rows()) {
        std::printf("  %-66s", row.name.c_str());
        for (const Measured& m : measured) std::printf(" %16s", row.value(m).c_str());
        std::printf("\n");
    }
    if (!references) std::printf("  (no reference beside it: a student release has no solutions/)\n");
    print_steps(yours);
    print_costly_lines(costly_lines(yours, exercise, kit.tree(kPreset) + "/explain/addr2line.txt"));
    std::printf("\nWhat the numbers say:\n");
    for (const std::string& line : lessons(yours, references ? &measured[1] : nullptr, rung->number)) std::printf("  - %s\n", line.c_str());
    if (measured.size() == 3)
        if (const std::string since = since_previous(measured[1], measured[2], previous->number); !since.empty())
            std::printf("  - %s\n", since.c_str());
    if (d.value("error", "").empty()) measure_on_gpu(kit, *rung, measured, programs, args);
    else
        std::printf("\nYour kernel stopped with an error: %s. The numbers are what it did until then; ./lab check %s says more.\n",
                    d.value("error", "").c_str(), rung->number.c_str());
    if (!html_out.empty()) {
        std::vector<std::string> command{kit.program(kPreset, "lab-explain-" + rung->id), "--page", html_out};
        for (const Measured& m : measured) command.push_back(m.who + "=" + m.file);
        process::Options options;
        options.output = kit.tree(kPreset) + "/explain/page.log";
        if (process::exit_code(process::run(command, options)) != 0)
            throw Failure("the page could not be written: " + read_file(options.output), 1);
        std::printf("\nThe pictures (block 0's threads and banks, step by step, beside the references): %s\n", html_out.c_str());
    }
    if (!json_out.empty()) {
        json all_json = json::object();
        for (const Measured& m : measured) all_json[m.who] = m.data;
        std::ofstream(json_out) << all_json.dump(1) << "\n";
        std::printf("\nEvery number: %s\n", json_out.c_str());
    }
    return d.value("error", "").empty() ? 0 : 1;
}

}  // namespace lab::cli
