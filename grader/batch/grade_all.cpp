// INSTRUCTOR SIDE. See grade_all.hpp and README.md.
#include "grade_all.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "gradebook.hpp"
#include "lms.hpp"
#include "lab/json_text.hpp"
#include "lab/process.hpp"
#include "lab/random.hpp"
#include "lab/text.hpp"
#include "roster.hpp"
#include "similarity.hpp"

namespace lab::batch {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::atomic<bool> stop_requested{false};
constexpr int kMostWorkers = 64;
std::array<std::atomic<pid_t>, kMostWorkers> running_children{};  // each worker's lab-grade, 0 when none

// Ctrl-C (or Slurm's SIGTERM): the gradings under way are stopped (their children get the signal
// too) and nothing after them starts; what finished stays.
extern "C" void on_stop(int signal)
{
    stop_requested = true;
    for (auto& running : running_children)
        if (const pid_t child = running.load(); child > 0) kill(child, signal);
}

void catch_stops()
{
    struct sigaction action {};
    action.sa_handler = on_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

void write_text(const std::string& path, const std::string& text)
{
    // Written whole, then renamed: a reader (or an interrupted run) never sees half a file.
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
    std::size_t used = 0;
    std::uint64_t seed = 0;
    try {
        seed = std::stoull(text, &used, 0);
    } catch (const std::exception&) {
        used = 0;
    }
    if (text.empty() || used != text.size()) throw std::runtime_error("--seed " + text + " is not a number (0x...)");
    return seed;
}

// What the submission holds (every file's path and bytes; a checkout's .git left out): a change
// to it grades it again on a rerun.
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

// The folders of OUT.
std::string graded_dir(const std::string& out, const std::string& id) { return out + "/students/" + id; }
std::string failed_dir(const std::string& out, const std::string& id) { return out + "/not-graded/" + id; }

// The class's own state in OUT (class.json): its seed and rubric, kept between runs, and the
// roster of the latest run, which Slurm's tasks read.
struct ClassState {
    std::uint64_t seed = 0;
    std::string rubric, rubric_hash;  // the rubric's absolute path ("" for the kit's) and what it held
    int generation = 1;               // one more at each --force: a grade of an earlier one no longer counts
    // A changed submission's unchanged rungs keep their grade (lab-grade grade --reuse) within a
    // generation; --no-reuse (this run's, kept for its Slurm tasks) grades every rung again.
    bool reuse = true;
    std::vector<Student> students;
    // Each submission's fingerprint, read once per run (Slurm's watch asks for it at every look).
    mutable std::map<std::string, std::string> prints;
    const std::string& print_of(const Student& s) const
    {
        auto at = prints.find(s.id);
        // A new time of hand-in (the late policy's) grades it again, as new files do.
        if (at == prints.end())
            at = prints.emplace(s.id, fingerprint(s.path) + (s.submitted_at.empty() ? "" : " handed in " + s.submitted_at)).first;
        return at->second;
    }
};

json to_json(const ClassState& state)
{
    json students = json::array();
    for (const Student& s : state.students) students.push_back({{"id", s.id}, {"path", s.path}, {"submitted_at", s.submitted_at}});
    return {{"seed", hex(state.seed)}, {"rubric", state.rubric}, {"rubric_hash", state.rubric_hash},
            {"generation", state.generation}, {"reuse", state.reuse}, {"students", students}};
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
    for (const json& s : j.at("students")) state.students.push_back({s.at("id"), s.at("path"), s.value("submitted_at", "")});
    return state;
}

std::uint64_t student_seed(std::uint64_t class_seed, const std::string& id)
{
    return class_seed ^ lab::fnv1a("student/" + id);
}

// Graded in this generation, from the submission as it is now.
bool is_graded(const std::string& out, const ClassState& state, const Student& s)
{
    const std::string& print = state.print_of(s);
    const std::string dir = graded_dir(out, s.id);
    if (!fs::exists(dir + "/grade.json") || !fs::exists(dir + "/batch.json")) return false;
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

// Why the student's last grading failed, from not-graded/ID: what lab-grade's exit said, its log's
// last line, and where the log is.
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

struct Graded {
    bool ok = false, stopped = false;
    double seconds = 0, score = 0, max = 0;
    std::string why;
};

// Grades one student by a `lab-grade grade` of its own, into a folder of its own that is renamed
// into students/ID only once its reports are whole; a failed grading goes to not-graded/ID with
// its log. A signal stops it and leaves nothing.
// One of grade-all's workers: the lab-grade it runs (in a build tree of its own) and the GPU it
// has to itself (CUDA_VISIBLE_DEVICES; "" leaves the variable as it is).
struct Worker {
    std::string grader, gpu;
    int index = 0;
};

// The student's gradings so far (history.json in its folder, the class summary's progress over
// resubmissions), this one last. A folder graded before history.json existed gives its grade.json
// as the first. Not the student's to change: OUT is the instructor's.
json history_after(const std::string& out, const std::string& id, const json& grade, int generation)
{
    const std::string dir = graded_dir(out, id);
    json history = json::array();
    try {
        if (const auto text = lab::try_read_file(dir + "/history.json")) history = json::parse(*text);
        else if (const auto earlier = lab::try_read_file(dir + "/grade.json")) {
            const json batch = json::parse(lab::read_file(dir + "/batch.json"));
            history.push_back(history_entry(json::parse(*earlier), batch.at("generation").get<int>()));
        }
    } catch (const std::exception&) {
        history = json::array();  // unreadable: the history starts again here
    }
    if (!history.is_array()) history = json::array();
    history.push_back(history_entry(grade, generation));
    constexpr std::size_t kKept = 100;  // the latest gradings; a student resubmitting in a loop keeps a page's worth
    if (history.size() > kKept) history.erase(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(history.size() - kKept));
    return history;
}

Graded grade_one(const std::string& out, const Student& s, const ClassState& state, const Worker& worker, int jobs)
{
    const std::string& grader = worker.grader;
    std::atomic<pid_t>& running_child = running_children[static_cast<std::size_t>(worker.index)];
    Graded g;
    const auto started = Clock::now();
    const std::string& print = state.print_of(s);
    const std::string partial = out + "/students/." + s.id + ".partial." + host_name() + "." + std::to_string(getpid());
    fs::remove_all(partial);
    fs::create_directories(partial);
    std::vector<std::string> args{grader, "grade", s.path, "--out", partial + "/report", "--seed",
                                  hex(student_seed(state.seed, s.id)), "--jobs", std::to_string(jobs), "--student", s.id};
    if (!s.submitted_at.empty()) {
        args.push_back("--submitted-at");
        args.push_back(s.submitted_at);
    }
    if (!state.rubric.empty()) {
        args.push_back("--rubric");
        args.push_back(state.rubric);
    }
    // Graded before in this generation (so with this seed and rubric) and changed since: the rungs
    // whose files did not change keep their grades, as lab-grade decides (it checks the file, the
    // kit, the rubric, the seed and the device).
    if (state.reuse && fs::exists(graded_dir(out, s.id) + "/grade.json")) {
        try {
            const json before = json::parse(lab::read_file(graded_dir(out, s.id) + "/batch.json"));
            if (before.at("generation") == state.generation) {
                args.push_back("--reuse");
                args.push_back(graded_dir(out, s.id));
            }
        } catch (const std::exception&) {
            // No batch.json of ours: grade every rung.
        }
    }
    lab::process::Options options;
    options.output = partial + "/grade.log";
    options.null_stdin = true;
    // A grade-all killed outright (SIGKILL, the machine's OOM killer) takes this grading with it: left
    // alone it would go on building and running a submission nobody waits for, holding the build
    // tree's lock against the next run. (This thread waits for it, as PR_SET_PDEATHSIG needs.)
    options.die_with_parent = true;
    if (!worker.gpu.empty()) options.environment.push_back({"CUDA_VISIBLE_DEVICES", worker.gpu});
    const pid_t pid = lab::process::start(args, options);
    if (pid < 0) throw std::runtime_error("cannot start " + grader);
    running_child = pid;
    if (stop_requested) kill(pid, SIGINT);  // a signal that came before the child was known
    const int code = lab::process::exit_code(lab::process::wait(pid));
    running_child = 0;
    g.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    if (stop_requested) {
        fs::remove_all(partial);
        g.stopped = true;
        return g;
    }
    json grade;
    std::string why;
    try {
        grade = json::parse(lab::read_file(partial + "/report/grade.json"));
        g.score = grade.at("score").get<double>();
        g.max = grade.at("max").get<double>();
    } catch (const std::exception&) {
        why = "no readable grade.json";
    }
    if (code != 0) why = "lab-grade exited with " + std::to_string(code);
    const json batch = {{"student", s.id},       {"submission", s.path}, {"fingerprint", print},
                        {"seed", hex(student_seed(state.seed, s.id))}, {"host", host_name()},
                        {"seconds", g.seconds}, {"exit", code},         {"why", why},
                        {"generation", state.generation}};
    write_text(partial + "/batch.json", lab::json_text(batch, 1) + "\n");
    // The reports lie flat in the student's folder, beside the grading's log and batch.json.
    if (why.empty()) {
        for (const auto& entry : fs::directory_iterator(partial + "/report"))
            fs::rename(entry.path(), partial + "/" + entry.path().filename().string());
        write_text(partial + "/history.json", lab::json_text(history_after(out, s.id, grade, state.generation), 1) + "\n");
    }
    fs::remove_all(partial + "/report");
    const std::string target = why.empty() ? graded_dir(out, s.id) : failed_dir(out, s.id);
    fs::create_directories(fs::path(target).parent_path());
    fs::remove_all(target);
    fs::rename(partial, target);
    if (why.empty()) {
        fs::remove_all(failed_dir(out, s.id));
        g.ok = true;
    } else {
        g.why = why_not_graded(out, s.id);
    }
    return g;
}

// Every student's outcome as OUT holds it now.
std::vector<Outcome> outcomes(const std::string& out, const ClassState& state,
                              const std::map<std::string, std::string>& why_not = {})
{
    std::vector<Outcome> all;
    for (const Student& s : state.students) {
        Outcome o;
        o.id = s.id;
        const std::string dir = graded_dir(out, s.id);
        try {
            if (is_graded(out, state, s)) {
                o.grade = json::parse(lab::read_file(dir + "/grade.json"));
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
    return all;
}

}  // namespace

int write_similarity_reports(const std::string& out, const std::vector<std::string>& students, const SimilarityOptions& options)
{
    const ClassSimilarity found = class_similarity(out, students, options);
    write_text(out + "/similarity.md", similarity_markdown(found.rungs, options, found.texts));
    write_text(out + "/similarity.html", similarity_html(found.rungs, options, found.texts));
    return found.listed;
}

namespace {

std::vector<std::string> graded_ids(const std::vector<Outcome>& all)
{
    std::vector<std::string> ids;
    for (const Outcome& o : all)
        if (o.graded) ids.push_back(o.id);
    return ids;
}

void write_class_reports(const std::string& out, const std::vector<Outcome>& all)
{
    const std::string title = "Class grades: " + fs::path(out).filename().string();
    write_text(out + "/gradebook.csv", gradebook_csv(all));
    write_text(out + "/class-summary.md", class_summary_markdown(all, title));
    write_text(out + "/class-summary.html", class_summary_html(all, title));
    const std::vector<std::string> graded = graded_ids(all);
    const int listed = write_similarity_reports(out, graded, SimilarityOptions{});
    std::printf("grade-all: %zu of %zu graded; gradebook: %s/gradebook.csv; class summary: %s/class-summary.html; "
                "similar pairs: %d (%s/similarity.html)\n",
                graded.size(), all.size(), out.c_str(), out.c_str(), listed, out.c_str());
    std::fflush(stdout);
}

std::string duration(double seconds)
{
    const long s = static_cast<long>(seconds + 0.5);
    if (s < 120) return std::to_string(s) + " s";
    if (s < 7200) return std::to_string((s + 30) / 60) + " min";
    return std::to_string(s / 3600) + " h " + std::to_string((s % 3600 + 30) / 60) + " min";
}

// Shows where a batch is: on a terminal one line rewritten in place, else a plain line each time.
class Progress {
public:
    explicit Progress(std::size_t total) : total_(total), terminal_(isatty(STDOUT_FILENO) == 1) {}
    void starting(std::size_t done, const std::string& what)
    {
        const std::string line = "[" + std::to_string(done) + "/" + std::to_string(total_) + "] " + what + eta(done);
        if (terminal_) std::printf("\r\033[K%s", line.c_str());
        else std::printf("grade-all: %s\n", line.c_str());
        std::fflush(stdout);
    }
    void finished(std::size_t done, const std::string& line, double seconds)
    {
        spent_ += seconds;
        ++timed_;
        if (terminal_) std::printf("\r\033[K");
        std::printf("grade-all: [%zu/%zu] %s\n", done, total_, line.c_str());
        std::fflush(stdout);
    }

private:
    std::string eta(std::size_t done) const
    {
        if (timed_ == 0 || done >= total_) return "";
        return " (about " + duration(spent_ / timed_ * static_cast<double>(total_ - done)) + " left)";
    }
    std::size_t total_, timed_ = 0;
    double spent_ = 0;
    bool terminal_;
};

std::string describe(const Graded& g)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.2f / %.2f in %s", g.score, g.max, duration(g.seconds).c_str());
    return g.ok ? text : "NOT GRADED: " + g.why;
}

// The class's state for this run: OUT's seed and rubric kept (a different --seed or rubric needs
// --force, so that one gradebook never mixes two), the roster as the source gives it now.
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
        state.seed = before.seed;
        state.generation = before.generation + (options.force ? 1 : 0);
        if (!options.force) {
            if (!options.seed.empty() && parse_seed(options.seed) != before.seed)
                throw std::runtime_error(options.out + " was graded with seed " + hex(before.seed) + ", not " + options.seed +
                                         ": leave --seed out to go on, or add --force to grade everyone again");
            if (before.rubric != state.rubric || before.rubric_hash != state.rubric_hash)
                throw std::runtime_error(options.out + " was graded under another rubric (" +
                                         (before.rubric.empty() ? "the kit's" : before.rubric) +
                                         "): give the same one to go on, or add --force to grade everyone again");
        }
    }
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

// What is left of gradings that never finished (a killed run): removed, never read.
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

int finish(const std::string& out, const ClassState& state, const std::map<std::string, std::string>& why_not = {})
{
    const std::vector<Outcome> all = outcomes(out, state, why_not);
    write_class_reports(out, all);
    if (stop_requested) {
        std::printf("grade-all: stopped; every finished grade is kept: run the same command again to go on\n");
        return 130;
    }
    return std::all_of(all.begin(), all.end(), [](const Outcome& o) { return o.graded; }) ? 0 : 1;
}

// The workers of a run: the first grades in this build tree; each other in a tree of its own
// (BUILD-worker-K beside BUILD, configured like this one the first time, and its lab-grade brought
// up to date each run), since a tree grades one submission at a time. Beside BUILD, not in it: at
// BUILD's depth under the kit its compile commands are BUILD's, path for path, so ./lab's compiler
// cache has its objects (BUILD/grading/worker-K took 185 s of compiling on 2 cores, found nothing). On a GPU each worker has a GPU
// of its own, so that no kernel runs on a GPU while another student's is timed there.
// How many workers the options ask for; throws, before anything is written, when they cannot be had.
int worker_count(const BatchOptions& options)
{
    const std::vector<std::string>& gpus = options.gpus;
    int count = options.workers;
    if (options.workers_per_gpu) {
        if (gpus.empty()) throw std::runtime_error("--workers gpus: no GPU here (the CPU backend); give a number of workers");
        count = static_cast<int>(gpus.size());
    }
    if (count < 1 || count > kMostWorkers)
        throw std::runtime_error("--workers " + std::to_string(count) + ": from 1 to " + std::to_string(kMostWorkers));
    if (!gpus.empty() && count > static_cast<int>(gpus.size()))
        throw std::runtime_error("--workers " + std::to_string(count) + ": this machine shows " + std::to_string(gpus.size()) +
                                 " GPU(s), and each worker needs one to itself (speed is timed with nothing else on the "
                                 "GPU); use --workers " + std::to_string(gpus.size()) + " or fewer");
    return count;
}

std::vector<Worker> workers_for(const BatchOptions& options)
{
    const std::vector<std::string>& gpus = options.gpus;
    const int count = worker_count(options);
    std::vector<Worker> workers;
    const fs::path tree = fs::path(options.grader).parent_path().parent_path();
    for (int k = 0; k < count; ++k) {
        Worker w;
        w.index = k;
        w.gpu = gpus.empty() || count == 1 ? "" : gpus[static_cast<std::size_t>(k)];
        w.grader = options.grader;
        if (k > 0) {
            const std::string own = tree.string() + "-worker-" + std::to_string(k);
            const std::string log = own + ".build.log";
            const bool fresh = !fs::exists(own + "/CMakeCache.txt");
            std::printf("grade-all: worker %d's build tree %s%s\n", k, own.c_str(),
                        fresh ? ": configuring and building it (the first time only; minutes)" : "");
            std::fflush(stdout);
            lab::process::Options quiet;
            quiet.output = log;
            quiet.null_stdin = true;
            quiet.search_path = true;
            if (fresh) {
                std::vector<std::string> configure{"cmake"};
                std::istringstream args(lab::read_file((tree / "grading" / "node-tree.args").string()));
                for (std::string arg; std::getline(args, arg);) configure.push_back(arg);
                configure.insert(configure.end(), {"-B", own});
                if (configure.size() < 4 || lab::process::exit_code(lab::process::run(configure, quiet)) != 0)
                    throw std::runtime_error("worker " + std::to_string(k) + "'s build tree could not be configured: see " + log);
                quiet.append = true;
            }
            const std::vector<std::string> build{"cmake", "--build", own, "--target", "lab-grade", "--", "-j",
                                                 std::to_string(std::max(1, options.jobs))};
            if (lab::process::exit_code(lab::process::run(build, quiet)) != 0)
                throw std::runtime_error("worker " + std::to_string(k) + "'s lab-grade did not build: see " + log);
            w.grader = own + "/grader/lab-grade";
        }
        workers.push_back(w);
    }
    return workers;
}

int grade_here(const BatchOptions& options, const ClassState& state)
{
    std::size_t already = 0;
    const std::vector<Student> pending = to_grade(options, state, already);
    const std::vector<Worker> workers = pending.empty() ? std::vector<Worker>{{options.grader, "", 0}} : workers_for(options);
    std::printf("grade-all: %zu students; %zu graded already, %zu to grade here, %s (seed %s)\n", state.students.size(),
                already, pending.size(),
                workers.size() == 1 ? "one at a time" : (std::to_string(workers.size()) + " at a time").c_str(),
                hex(state.seed).c_str());
    Progress progress(pending.size());
    std::mutex printing;
    std::atomic<std::size_t> next{0};
    std::size_t done = 0;
    auto work = [&](const Worker& worker) {
        for (std::size_t k; !stop_requested && (k = next++) < pending.size();) {
            {
                const std::lock_guard<std::mutex> lock(printing);
                progress.starting(done, "grading " + pending[k].id +
                                            (workers.size() > 1 ? " (worker " + std::to_string(worker.index) + ")" : ""));
            }
            const Graded g = grade_one(options.out, pending[k], state, worker, options.jobs);
            if (g.stopped) break;
            const std::lock_guard<std::mutex> lock(printing);
            progress.finished(++done, pending[k].id + ": " + describe(g), g.seconds);
        }
    };
    // Each worker's own thread starts and waits for its gradings (PR_SET_PDEATHSIG is a thread's).
    std::vector<std::thread> threads;
    for (std::size_t w = 1; w < workers.size(); ++w) threads.emplace_back(work, std::cref(workers[w]));
    work(workers[0]);
    for (auto& t : threads) t.join();
    return finish(options.out, state);
}

// ---- Slurm -------------------------------------------------------------------------------

std::string quoted(const std::string& text)
{
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs a Slurm command; its output in `output`; its exit code.
int slurm(const std::vector<std::string>& args, std::string& output, const std::string& scratch)
{
    lab::process::Options options;
    options.output = scratch;
    options.search_path = true;
    options.null_stdin = true;
    const int code = lab::process::run(args, options);
    output = lab::read_file(scratch);
    while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
    return code;
}

std::string job_script(const BatchOptions& options, const std::string& round, std::size_t tasks)
{
    const SlurmOptions& s = options.slurm;
    const std::string out = fs::absolute(options.out).string();
    std::string text = "#!/bin/bash\n# Written by lab-grade grade-all --slurm: one array task per " +
                       std::to_string(s.per_task) + " submission(s) of " + round + ".json.\n";
    text += "#SBATCH --job-name=lab-grade-all\n#SBATCH --array=0-" + std::to_string(tasks - 1) +
            (s.max_running > 0 ? "%" + std::to_string(s.max_running) : "") + "\n";
    text += "#SBATCH --output=" + out + "/slurm/" + round + "-task-%a.log\n#SBATCH --requeue\n";
    if (!s.partition.empty()) text += "#SBATCH --partition=" + s.partition + "\n";
    if (!s.gres.empty()) text += "#SBATCH --gres=" + s.gres + "\n";
    if (!s.time.empty()) text += "#SBATCH --time=" + s.time + "\n";
    if (!s.account.empty()) text += "#SBATCH --account=" + s.account + "\n";
    for (const std::string& arg : s.sbatch_args) {
        if (arg.find('\n') != std::string::npos) throw std::runtime_error("--sbatch-arg " + arg + ": one line only");
        text += "#SBATCH " + arg + "\n";
    }
    text += "set -euo pipefail\n";
    std::string grader = quoted(options.grader);
    if (!s.node_tree.empty()) {
        // A build tree of the kit on the node's own disk, one per task running there at once (the
        // first free slot, locked for the task's life), configured and built the first time.
        const std::string args_file = fs::path(options.grader).parent_path().parent_path().string() + "/grading/node-tree.args";
        text += "base=" + quoted(s.node_tree) + "\nmkdir -p \"$(dirname \"$base\")\"\n"
                "for slot in $(seq 0 63); do exec 9>\"$base-$slot.lock\"; flock -n 9 && break; done\n"
                "tree=\"$base-$slot\"\n"
                "if [[ ! -x \"$tree/grader/lab-grade\" ]]; then\n"
                "  mapfile -t args < " + quoted(args_file) + "\n"
                "  cmake \"${args[@]}\" -B \"$tree\" > \"$tree.configure.log\" 2>&1 || { cat \"$tree.configure.log\"; exit 1; }\n"
                "  cmake --build \"$tree\" --target lab-grade >> \"$tree.configure.log\" 2>&1 || { cat \"$tree.configure.log\"; exit 1; }\n"
                "fi\n";
        grader = "\"$tree/grader/lab-grade\"";
    }
    text += "exec " + grader + " grade-task " + quoted(out) + " --round " + quoted(out + "/slurm/" + round + ".json") +
            " --task \"$SLURM_ARRAY_TASK_ID\" --per-task " + std::to_string(s.per_task) + " --jobs " +
            std::to_string(options.jobs) + "\n";
    return text;
}

int grade_on_slurm(const BatchOptions& options, const ClassState& state)
{
    const SlurmOptions& s = options.slurm;
    for (const std::string tool : {"sbatch", "squeue", "scancel"})
        if (lab::process::find_program(tool).empty())
            throw std::runtime_error(std::string("--slurm needs Slurm's ") + tool +
                                     " on PATH (Debian: apt-get install slurm-client), on a machine that can submit to the cluster");
    const std::string slurm_dir = options.out + "/slurm";
    fs::create_directories(slurm_dir);
    std::map<std::string, std::string> why_not;
    std::set<std::string> decided;  // not graded, and lab-grade said why (a broken archive)
    for (int attempt = 0; attempt <= s.retries && !stop_requested; ++attempt) {
        std::size_t already = 0;
        std::vector<Student> pending = to_grade(options, state, already);
        pending.erase(std::remove_if(pending.begin(), pending.end(), [&](const Student& p) { return decided.count(p.id) > 0; }),
                      pending.end());
        if (pending.empty()) break;
        const std::size_t tasks = (pending.size() + s.per_task - 1) / s.per_task;
        int round_number = 1;
        while (fs::exists(slurm_dir + "/round-" + std::to_string(round_number) + ".json")) ++round_number;
        const std::string round = "round-" + std::to_string(round_number);
        json ids = json::array();
        for (const Student& p : pending) {
            ids.push_back(p.id);
            // A failure recorded by an earlier run is not this round's: its task writes a new one.
            fs::remove_all(failed_dir(options.out, p.id));
        }
        write_text(slurm_dir + "/" + round + ".json", lab::json_text(ids) + "\n");
        write_text(slurm_dir + "/" + round + ".sh", job_script(options, round, tasks));
        std::string job;
        if (slurm({"sbatch", "--parsable", slurm_dir + "/" + round + ".sh"}, job, slurm_dir + "/" + round + ".sbatch.log") != 0)
            throw std::runtime_error("sbatch refused the job: " + job + " (the script: " + slurm_dir + "/" + round + ".sh)");
        job = job.substr(0, job.find(';'));
        std::printf("grade-all: %zu students; %zu graded already; Slurm job %s: %zu task(s) for the %zu to grade (%s)\n",
                    state.students.size(), already, job.c_str(), tasks, pending.size(), round.c_str());
        std::fflush(stdout);
        Progress progress(pending.size());
        std::set<std::string> shown;
        const auto started = Clock::now();
        for (;;) {
            std::string queued;
            const int code = slurm({"squeue", "-h", "-j", job, "-o", "%i %T"}, queued, slurm_dir + "/" + round + ".squeue.log");
            for (const Student& p : pending) {
                if (shown.count(p.id)) continue;
                const bool graded = is_graded(options.out, state, p);
                if (!graded && !fs::exists(failed_dir(options.out, p.id) + "/batch.json")) continue;
                shown.insert(p.id);
                Graded g;
                std::string host = "?";
                try {
                    const std::string dir = graded ? graded_dir(options.out, p.id) : failed_dir(options.out, p.id);
                    const json batch = json::parse(lab::read_file(dir + "/batch.json"));
                    g.ok = graded;
                    g.seconds = batch.at("seconds");
                    host = batch.at("host");
                    if (!graded) g.why = why_not_graded(options.out, p.id);
                    if (graded) {
                        const json grade = json::parse(lab::read_file(dir + "/grade.json"));
                        g.score = grade.at("score");
                        g.max = grade.at("max");
                    }
                } catch (const std::exception& e) {
                    g.why = e.what();
                }
                progress.finished(shown.size(), p.id + ": " + describe(g) + " on " + host,
                                  std::chrono::duration<double>(Clock::now() - started).count() / static_cast<double>(shown.size()));
            }
            // squeue forgets a finished job (it exits non-zero, or lists nothing).
            if (code != 0 || queued.empty() || stop_requested) break;
            for (int tick = 0; tick < static_cast<int>(s.poll_seconds * 10) && !stop_requested; ++tick)
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (stop_requested) {
            std::string said;
            slurm({"scancel", job}, said, slurm_dir + "/" + round + ".scancel.log");
            std::printf("grade-all: stopped; Slurm job %s cancelled\n", job.c_str());
            break;
        }
        std::size_t done = 0, again = 0;
        for (std::size_t k = 0; k < pending.size(); ++k) {
            const Student& p = pending[k];
            if (is_graded(options.out, state, p)) {
                ++done;
                continue;
            }
            if (!fs::exists(failed_dir(options.out, p.id) + "/batch.json") && ++again)
                why_not[p.id] = "its Slurm task (job " + job + ", task " + std::to_string(k / s.per_task) +
                                ") ended without a grade: see slurm/" + round + "-task-" +
                                std::to_string(k / s.per_task) + ".log and sacct -j " + job;
            else
                decided.insert(p.id);  // lab-grade said why: another round would say it again
        }
        std::printf("grade-all: Slurm job %s graded %zu of %zu%s\n", job.c_str(), done, pending.size(),
                    again > 0 && attempt < s.retries ? "; submitting again those whose task ended without a grade" : "");
    }
    for (const Student& st : state.students)
        if (is_graded(options.out, state, st)) why_not.erase(st.id);
    return finish(options.out, state, why_not);
}

}  // namespace

// One grade-all at a time per output folder: a second one, started on the same class by mistake,
// would rewrite class.json under the first and remove its gradings in progress as leftovers. The
// lock (flock on OUT/.grade-all.lock) lasts as long as the process, whatever ends it: a grade-all
// killed with SIGKILL leaves nothing that stops the next one. Holds the descriptor, never closed.
void hold_class_lock(const std::string& out)
{
    fs::create_directories(out);
    const std::string path = out + "/.grade-all.lock";
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const std::string holder = last_line(path);  // the note the holder wrote below
        throw std::runtime_error("another grade-all is grading into " + out + " now" +
                                 (holder.empty() ? "" : " (" + holder + ")") +
                                 ": wait for it to end, or stop it (Ctrl-C keeps what it graded); nothing was changed");
    }
    if (ftruncate(fd, 0) == 0) {
        const std::time_t now = std::time(nullptr);
        char when[32];
        std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
        const std::string holder = "process " + std::to_string(getpid()) + " on " + host_name() + ", since " + when + "\n";
        if (write(fd, holder.data(), holder.size()) < 0) { /* the lock holds without its note */ }
    }
}

int grade_all(const BatchOptions& options)
{
    // A bad --workers or roster changes nothing, OUT included.
    if (!options.slurm.on) worker_count(options);
    std::vector<std::string> ignored;
    std::vector<Student> students = read_roster(options.source, ignored);
    hold_class_lock(options.out);
    for (const std::string& i : ignored) std::printf("grade-all: ignored %s\n", i.c_str());
    const ClassState state = prepare(options, std::move(students));
    remove_leftovers(options.out);
    catch_stops();
    const int code = options.slurm.on ? grade_on_slurm(options, state) : grade_here(options, state);
    if (!options.lms_roster.empty()) print_lms_export(export_lms(options.out, options.lms_roster, options.lms_assignment));
    return code;
}

void print_lms_export(const LmsExport& done)
{
    for (const std::string& w : done.warnings) std::printf("LMS export: WARNING %s\n", w.c_str());
    for (const std::string& f : done.written) std::printf("LMS export: wrote %s\n", f.c_str());
    std::fflush(stdout);
}

namespace {

// Every student's outcome in OUT, a class grade-all graded, with its lock held: not while a
// grade-all writes there.
std::vector<Outcome> graded_class(const std::string& out)
{
    if (!fs::exists(out + "/class.json"))
        throw std::runtime_error(out + " holds no class grade-all graded (no class.json): give grade-all's --out");
    hold_class_lock(out);
    return outcomes(out, read_state(out));
}

}  // namespace

int class_report(const std::string& out)
{
    write_class_reports(out, graded_class(out));
    std::printf("class-report: %s/gradebook.csv, %s/class-summary.md and .html written again from the grades there\n", out.c_str(),
                out.c_str());
    return 0;
}

int similarity_report(const std::string& out, const SimilarityOptions& options)
{
    const std::vector<std::string> graded = graded_ids(graded_class(out));
    const int listed = write_similarity_reports(out, graded, options);
    std::printf("similarity: %zu graded students compared; %d pairs listed in %s/similarity.html (and .md)\n", graded.size(),
                listed, out.c_str());
    return 0;
}

int grade_task(const std::string& out, const std::string& round_file, int task, int per_task, const std::string& grader,
               int jobs)
{
    catch_stops();
    const ClassState state = read_state(out);
    const json ids = json::parse(lab::read_file(round_file));
    int failed = 0;
    for (int k = task * per_task; k < (task + 1) * per_task && k < static_cast<int>(ids.size()) && !stop_requested; ++k) {
        const std::string id = ids.at(k).get<std::string>();
        const auto s = std::find_if(state.students.begin(), state.students.end(), [&](const Student& x) { return x.id == id; });
        if (s == state.students.end()) throw std::runtime_error(id + " is not in " + out + "/class.json");
        // A task that Slurm started again (requeued after preemption) skips what it graded before.
        if (is_graded(out, state, *s)) continue;
        const Graded g = grade_one(out, *s, state, Worker{grader, "", 0}, jobs);
        std::printf("%s on %s: %s\n", id.c_str(), host_name().c_str(), describe(g).c_str());
        std::fflush(stdout);
        failed += !g.ok;
    }
    return stop_requested ? 130 : failed ? 1 : 0;
}

}  // namespace lab::batch
