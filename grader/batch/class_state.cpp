// INSTRUCTOR SIDE. See class_state.hpp.
#include "class_state.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>

#include "lab/json_text.hpp"
#include "lab/random.hpp"
#include "lab/text.hpp"
#include "lms.hpp"
#include "similarity.hpp"

namespace lab::batch {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::atomic<bool> stop_requested{false};

void write_text(const std::string& path, const std::string& text)
{
    const std::string partial = path + ".partial";
    {
        std::ofstream out(partial, std::ios::trunc | std::ios::binary);
        out << text;
        if (!out) throw std::runtime_error("cannot write " + partial);
    }
    fs::rename(partial, path);
}

std::string host_name()
{
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    return name;
}

std::string hex(std::uint64_t value)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
    return text;
}

std::uint64_t parse_seed(const std::string& text)
{
    const auto seed = lab::parse_seed_text(text);
    if (!seed) throw std::runtime_error("--seed " + text + " is not a number (0x...)");
    return *seed;
}

std::string fingerprint(const std::string& path)
{
    std::uint64_t hash = lab::fnv1a("submission");
    auto mix = [&hash](const std::string& text) { hash = lab::fnv1a_mix(hash, text); };
    if (fs::is_directory(path)) {
        std::vector<std::string> files;
        for (auto it = fs::recursive_directory_iterator(path); it != fs::recursive_directory_iterator(); ++it) {
            if (it->is_directory() && it->path().filename() == ".git") {
                it.disable_recursion_pending();
                continue;
            }
            if (it->is_regular_file()) files.push_back(fs::relative(it->path(), path).string());
        }
        std::sort(files.begin(), files.end());
        for (const std::string& f : files) {
            mix(f);
            mix(lab::read_file(path + "/" + f));
        }
    } else {
        mix(lab::read_file(path));
    }
    return hex(hash);
}

std::string graded_dir(const std::string& out, const std::string& id) { return out + "/students/" + id; }
std::string failed_dir(const std::string& out, const std::string& id) { return out + "/not-graded/" + id; }

json to_json(const ClassState& state)
{
    json students = json::array();
    for (const Student& s : state.students) students.push_back({{"id", s.id}, {"path", s.path}, {"submitted_at", s.submitted_at}});
    return {{"seed", lab::seed_text(state.seed)}, {"rubric", state.rubric}, {"rubric_hash", state.rubric_hash},
            {"generation", state.generation}, {"reuse", state.reuse}, {"assignment", state.assignment},
            {"lms_students", state.lms_students}, {"students", students}};
}

ClassState read_state(const std::string& out)
{
    const json j = json::parse(lab::read_file(out + "/class.json"));
    ClassState state;
    state.seed = parse_seed(j.at("seed").get<std::string>());
    state.rubric = j.at("rubric").get<std::string>();
    state.rubric_hash = j.at("rubric_hash").get<std::string>();
    state.generation = j.at("generation").get<int>();
    state.reuse = j.value("reuse", true);
    state.assignment = j.value("assignment", std::string(kDefaultAssignment));
    state.lms_students = j.value("lms_students", std::vector<std::string>{});
    for (const json& s : j.at("students")) state.students.push_back({s.at("id"), s.at("path"), s.value("submitted_at", "")});
    return state;
}

std::uint64_t student_seed(std::uint64_t class_seed, const std::string& id)
{
    return class_seed ^ lab::fnv1a("student/" + id);
}

bool is_graded(const std::string& out, const ClassState& state, const Student& s)
{
    const std::string& print = state.print_of(s);
    const std::string dir = graded_dir(out, s.id);
    if (!fs::exists(record_in(dir)) || !fs::exists(dir + "/batch.json")) return false;
    try {
        const json batch = json::parse(lab::read_file(dir + "/batch.json"));
        return batch.at("fingerprint") == print && batch.at("generation") == state.generation;
    } catch (const std::exception&) {
        return false;
    }
}

std::string last_line(const std::string& path)
{
    std::ifstream in(path);
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t") != std::string::npos) last = line;
    return last;
}

std::string why_not_graded(const std::string& out, const std::string& id)
{
    try {
        const json batch = json::parse(lab::read_file(failed_dir(out, id) + "/batch.json"));
        const std::string said = last_line(failed_dir(out, id) + "/grade.log");
        return batch.at("why").get<std::string>() + (said.empty() ? "" : " (" + said + ")") + "; its log: not-graded/" + id +
               "/grade.log";
    } catch (const std::exception&) {
        return "its grading failed; see not-graded/" + id;
    }
}

std::string duration(double seconds)
{
    const long s = static_cast<long>(seconds + 0.5);
    if (s < 120) return std::to_string(s) + " s";
    if (s < 7200) return std::to_string((s + 30) / 60) + " min";
    return std::to_string(s / 3600) + " h " + std::to_string((s % 3600 + 30) / 60) + " min";
}

std::string describe(const Graded& g)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.2f / %.2f in %s", g.score, g.max, duration(g.seconds).c_str());
    return g.ok ? text : "NOT GRADED: " + g.why;
}

ClassState prepare(const BatchOptions& options, std::vector<Student> students)
{
    ClassState state;
    state.students = std::move(students);
    state.reuse = !options.no_reuse;
    state.rubric = options.rubric.empty() ? "" : fs::absolute(options.rubric).lexically_normal().string();
    if (!state.rubric.empty() && !fs::is_regular_file(state.rubric))
        throw std::runtime_error("--rubric " + options.rubric + ": no such file");
    state.rubric_hash = state.rubric.empty() ? "the kit's" : hex(lab::fnv1a(lab::read_file(state.rubric)));
    const bool resuming = fs::exists(options.out + "/class.json");
    if (resuming) {
        const ClassState before = read_state(options.out);
        state.assignment = before.assignment;
        state.lms_students = before.lms_students;
        state.seed = before.seed;
        state.generation = before.generation + (options.force ? 1 : 0);
        if (!options.force) {
            if (!options.seed.empty() && parse_seed(options.seed) != before.seed)
                throw std::runtime_error(options.out + " was graded with seed " + lab::seed_text(before.seed) + ", not " + options.seed +
                                         ": leave --seed out to go on, or add --force to grade everyone again");
            if (before.rubric != state.rubric || before.rubric_hash != state.rubric_hash)
                throw std::runtime_error(options.out + " was graded under another rubric (" +
                                         (before.rubric.empty() ? "the kit's" : before.rubric) +
                                         "): give the same one to go on, or add --force to grade everyone again");
        }
    }
    if (!options.lms_assignment.empty()) state.assignment = options.lms_assignment;
    if (!options.lms_roster.empty()) state.lms_students = lms_roster_students(options.lms_roster);
    if (!options.seed.empty()) state.seed = parse_seed(options.seed);
    else if (!resuming || options.force) {
        std::random_device device;
        state.seed = (std::uint64_t{device()} << 32) ^ device() ^
                     static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    }
    fs::create_directories(options.out + "/students");
    write_text(options.out + "/class.json", lab::json_text(to_json(state), 1) + "\n");
    return state;
}

void remove_leftovers(const std::string& out)
{
    for (const auto& entry : fs::directory_iterator(out + "/students"))
        if (entry.path().filename().string().rfind('.', 0) == 0) fs::remove_all(entry.path());
}

std::vector<Student> to_grade(const BatchOptions& options, const ClassState& state, std::size_t& already)
{
    std::vector<Student> pending;
    already = 0;
    for (const Student& s : state.students) {
        if (is_graded(options.out, state, s)) {
            ++already;
            continue;
        }
        if (!options.force && fs::exists(graded_dir(options.out, s.id)))
            std::printf("grade-all: %s changed since it was graded: grading it again\n", s.id.c_str());
        pending.push_back(s);
    }
    return pending;
}

std::vector<Outcome> outcomes(const std::string& out, const ClassState& state,
                              const std::map<std::string, std::string>& why_not)
{
    std::vector<Outcome> all;
    for (const Student& s : state.students) {
        Outcome o;
        o.id = s.id;
        const std::string dir = graded_dir(out, s.id);
        try {
            if (is_graded(out, state, s)) {
                o.grade = json::parse(lab::read_file(record_in(dir)));
                const json batch = json::parse(lab::read_file(dir + "/batch.json"));
                o.host = batch.at("host");
                o.seconds = batch.at("seconds");
                o.graded = true;
                if (const auto history = lab::try_read_file(dir + "/history.json")) o.history = json::parse(*history);
            }
        } catch (const std::exception& e) {
            o.why_not = "its reports in students/" + s.id + " cannot be read: " + e.what();
        }
        if (!o.graded && o.why_not.empty()) {
            if (why_not.count(s.id)) o.why_not = why_not.at(s.id);
            else if (fs::exists(failed_dir(out, s.id) + "/batch.json"))
                o.why_not = why_not_graded(out, s.id);
            else if (fs::exists(dir)) {
                o.why_not = "its grade is out of date (the submission changed, or --force) and it was not graded again yet";
            } else {
                o.why_not = "not graded yet (the run was stopped first)";
            }
        }
        all.push_back(std::move(o));
    }
    // On the LMS's roster and not in the class: nothing handed in.
    std::set<std::string> in_class;
    for (const Student& s : state.students) in_class.insert(s.id);
    for (const std::string& id : state.lms_students)
        if (!in_class.count(id)) {
            Outcome o;
            o.id = id;
            o.no_submission = true;
            o.why_not = "no submission";
            all.push_back(std::move(o));
        }
    return all;
}

std::vector<std::string> graded_ids(const std::vector<Outcome>& all)
{
    std::vector<std::string> ids;
    for (const Outcome& o : all)
        if (o.graded) ids.push_back(o.id);
    return ids;
}

int write_similarity_reports(const std::string& out, const std::vector<std::string>& students, const SimilarityOptions& options)
{
    const ClassSimilarity found = class_similarity(out, students, options);
    write_text(out + "/similarity.md", similarity_markdown(found.rungs, options, found.texts));
    write_text(out + "/similarity.html", similarity_html(found.rungs, options, found.texts));
    return found.listed;
}

void write_class_reports(const std::string& out, const std::vector<Outcome>& all, const std::string& assignment)
{
    const std::string title = assignment + ": class grades";
    write_text(out + "/gradebook.csv", gradebook_csv(all));
    write_text(out + "/class-summary.md", class_summary_markdown(all, title));
    write_text(out + "/class-summary.html", class_summary_html(all, title));
    const std::vector<std::string> graded = graded_ids(all);
    const int listed = write_similarity_reports(out, graded, SimilarityOptions{});
    std::string none;
    std::size_t students = 0;
    for (const Outcome& o : all) {
        if (o.no_submission) none += (none.empty() ? "" : ", ") + o.id;
        else ++students;
    }
    std::printf("grade-all: %zu of %zu graded; gradebook: %s/gradebook.csv; class summary: %s/class-summary.html; "
                "similar pairs: %d (%s/similarity.html)\n",
                graded.size(), students, out.c_str(), out.c_str(), listed, out.c_str());
    if (!none.empty()) std::printf("grade-all: no submission (on the LMS roster, not in the class): %s\n", none.c_str());
    const std::string unstarted = rungs_nobody_started(all);
    if (!unstarted.empty())
        std::printf("grade-all: WARNING no graded submission started rung(s) %s (each left unfinished or not handed in), "
                    "yet the rubric grades them and counts their points in the maximum. If the course has not assigned "
                    "them, list the rungs it has in the rubric's [course] rungs and run grade-all again with --force.\n",
                    unstarted.c_str());
    std::fflush(stdout);
}

int finish(const std::string& out, const ClassState& state, const std::map<std::string, std::string>& why_not)
{
    const std::vector<Outcome> all = outcomes(out, state, why_not);
    write_class_reports(out, all, state.assignment);
    if (stop_requested) {
        std::printf("grade-all: stopped; every finished grade is kept: run the same command again to go on\n");
        return 130;
    }
    return std::all_of(all.begin(), all.end(), [](const Outcome& o) { return o.graded || o.no_submission; }) ? 0 : 1;
}

}  // namespace lab::batch
