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
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "class_state.hpp"
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

constexpr int kMostWorkers = 64;
// The most workers a GPU may have (--per-gpu): gradings share it for their cases and sanitizer
// tools, and each has it alone for its speed (the GPU lock, gpu_lock.hpp); meanwhile the others
// build, screen and write reports.
constexpr int kMostPerGpu = 8;
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

// Grades one student by a `lab-grade grade` of its own, into a folder of its own that is renamed
// into students/ID only once its reports are whole; a failed grading goes to not-graded/ID with
// its log. A signal stops it and leaves nothing.
// One of grade-all's workers: the lab-grade it runs (in a build tree of its own) and the GPU it
// uses (CUDA_VISIBLE_DEVICES; "" leaves the variable as it is), shared with one other worker.
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
        else if (const auto earlier = lab::try_read_file(record_in(dir))) {
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
    if (state.reuse && fs::exists(record_in(graded_dir(out, s.id)))) {
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
        grade = json::parse(lab::read_file(record_in(partial + "/report")));
        g.score = grade.at("score").get<double>();
        g.max = grade.at("max").get<double>();
    } catch (const std::exception&) {
        why = "no readable instructor/grade.json";
    }
    if (code != 0) why = "lab-grade exited with " + std::to_string(code);
    const json batch = {{"student", s.id},       {"submission", s.path}, {"fingerprint", print},
                        {"seed", hex(student_seed(state.seed, s.id))}, {"host", host_name()},
                        {"seconds", g.seconds}, {"exit", code},         {"why", why},
                        {"generation", state.generation},
                        // Which of grade-all's workers graded it, and on which GPU (CUDA_VISIBLE_DEVICES;
                        // "" when the worker was not pinned to one): a slow or faulty GPU of a host
                        // shows as the gradings it made.
                        {"worker", worker.index}, {"gpu", worker.gpu}};
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

// The workers of a run: the first grades in this build tree; each other in a tree of its own
// (BUILD-worker-K beside BUILD, configured like this one the first time, and its lab-grade brought
// up to date each run), since a tree grades one submission at a time. Beside BUILD, not in it: at
// BUILD's depth under the kit its compile commands are BUILD's, path for path, so ./lab's compiler
// cache has its objects (BUILD/grading/worker-K took 185 s of compiling on 2 cores, found nothing). On a GPU
// --per-gpu workers (three) share each GPU (CUDA_VISIBLE_DEVICES): their cases and tools share it,
// and each grading's speed has it alone (GpuLock), so no kernel runs on a GPU while another
// student's is timed there.

std::vector<Worker> workers_for(const BatchOptions& options)
{
    const std::vector<std::string>& gpus = options.gpus;
    const int count = worker_count(options);
    std::vector<Worker> workers;
    const fs::path tree = fs::path(options.grader).parent_path().parent_path();
    for (int k = 0; k < count; ++k) {
        Worker w;
        w.index = k;
        w.gpu = gpus.empty() || count == 1 ? "" : gpus[static_cast<std::size_t>(k) % gpus.size()];
        w.grader = options.grader;
        if (k > 0) {
            const std::string own = tree.string() + "-worker-" + std::to_string(k);
            const std::string log = own + ".build.log";
            const bool fresh = !fs::exists(own + "/CMakeCache.txt");
            // Configured again when this tree's settings for it were written since (this tree was
            // configured again): a worker's tree must read as this one does, or the rungs it grades
            // get reuse keys of their own.
            const fs::path settings = tree / "grading" / "node-tree.args";
            std::error_code error;
            const bool behind = !fresh && fs::exists(settings, error) &&
                                fs::last_write_time(settings, error) > fs::last_write_time(own + "/CMakeCache.txt", error);
            std::printf("grade-all: worker %d's build tree %s%s\n", k, own.c_str(),
                        fresh    ? ": configuring and building it (the first time only; minutes)"
                        : behind ? ": configuring it again, with its tree's settings"
                                 : "");
            std::fflush(stdout);
            lab::process::Options quiet;
            quiet.output = log;
            quiet.null_stdin = true;
            quiet.search_path = true;
            if (fresh || behind) {
                std::vector<std::string> configure{"cmake"};
                std::istringstream args(lab::read_file(settings.string()));
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
            w.grader = own + "/bin/lab-grade";
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
    ProgressLine progress(pending.size());
    std::mutex printing;
    std::atomic<std::size_t> next{0};
    std::size_t done = 0;
    auto work = [&](const Worker& worker) {
        for (std::size_t k; !stop_requested && (k = next++) < pending.size();) {
            {
                const std::lock_guard<std::mutex> lock(printing);
                progress.starting(done, "grading " + pending[k].id +
                                            (workers.size() > 1 ? " (worker " + std::to_string(worker.index) +
                                                                      (worker.gpu.empty() ? "" : ", GPU " + worker.gpu) + ")"
                                                                : ""));
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
    if (!options.lms_roster.empty()) print_lms_export(export_lms(options.out, options.lms_roster, state.assignment));
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

std::string class_assignment(const std::string& out)
{
    if (!fs::exists(out + "/class.json"))
        throw std::runtime_error(out + " holds no class grade-all graded (no class.json): give grade-all's --out");
    return read_state(out).assignment;
}

int class_report(const std::string& out)
{
    write_class_reports(out, graded_class(out), read_state(out).assignment);
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

int worker_count(const BatchOptions& options)
{
    if (options.per_gpu < 1 || options.per_gpu > kMostPerGpu)
        throw std::runtime_error("--per-gpu " + std::to_string(options.per_gpu) + ": from 1 to " + std::to_string(kMostPerGpu));
    const std::vector<std::string>& gpus = options.gpus;
    int count = options.workers;
    if (options.workers_per_gpu) {
        if (gpus.empty()) throw std::runtime_error("--workers gpus: no GPU here (the CPU backend); give a number of workers");
        count = options.per_gpu * static_cast<int>(gpus.size());
    }
    if (count < 1 || count > kMostWorkers)
        throw std::runtime_error("--workers " + std::to_string(count) + ": from 1 to " + std::to_string(kMostWorkers));
    const int most = options.per_gpu * static_cast<int>(gpus.size());
    if (!gpus.empty() && count > most)
        throw std::runtime_error("--workers " + std::to_string(count) + ": this machine shows " + std::to_string(gpus.size()) +
                                 " GPU(s), and " + std::to_string(options.per_gpu) +
                                 " workers share one (--per-gpu: their cases share it; each speed is timed with nothing else "
                                 "on it); use --workers " + std::to_string(most) + " or fewer");
    return count;
}

}  // namespace lab::batch
