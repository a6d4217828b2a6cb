// TRUSTED SIDE. See builder.hpp.
#include "builder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "sandbox.hpp"
#include "screen.hpp"

namespace lab::grading {

namespace {

namespace fs = std::filesystem;
constexpr std::size_t kLogBytes = 12 * 1024;

// Runs `args` (found on PATH), its output into `log`; returns its exit status.
int run(const std::vector<std::string>& args, const std::string& log)
{
    lab::process::Options options;
    options.output = log;
    options.search_path = true;
    options.null_stdin = true;
    return lab::process::run(args, options);
}

// What a build may use: nvcc's compilers take a few GiB each at most.
SandboxLimits build_limits(int jobs)
{
    SandboxLimits limits;
    limits.cpu_seconds = 1200;
    limits.file_bytes = std::uint64_t{2} << 30;
    limits.processes = 4096;
    const std::uint64_t half_of_memory =
        static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE)) / 2;
    limits.memory_bytes = std::min(half_of_memory, std::max<std::uint64_t>(4, 2 * static_cast<std::uint64_t>(jobs)) << 30);
    return limits;
}

// Runs `args` in the sandbox `spec` makes, its output into `log`; returns its exit status.
int run_confined(const std::vector<std::string>& args, const SandboxSpec& spec, const std::string& log)
{
    const Sandbox sandbox(args, spec);
    lab::process::Options options = sandbox.options(log);
    options.search_path = true;  // cmake, where no sandbox wraps it
    const int status = lab::process::run(sandbox.argv(), options);
    if (const std::string why = sandbox.limit_reached(); !why.empty())
        std::ofstream(log, std::ios::app) << "\nThe build was stopped: " << why << ".\n";
    return status;
}

// grading/inspect/ID.txt, which CMake writes (grader/CMakeLists.txt): "key=value;value" lines
// naming the rung's objects, their baselines, the targets that build those, nvcc's keep folder and
// the paths the compilers see the submitted file under.
using InspectPaths = std::map<std::string, std::vector<std::string>>;
InspectPaths inspect_paths(const std::string& dir, const std::string& id)
{
    std::ifstream in(dir + "/grading/inspect/" + id + ".txt");
    if (!in) throw std::runtime_error("the build tree " + dir + " has no grading/inspect/" + id + ".txt: reconfigure it");
    InspectPaths paths;
    for (std::string line; std::getline(in, line);) {
        const std::size_t equals = line.find('=');
        if (equals == std::string::npos) continue;
        std::vector<std::string>& values = paths[line.substr(0, equals)];
        std::stringstream list(line.substr(equals + 1));
        for (std::string value; std::getline(list, value, ';');)
            if (!value.empty()) values.push_back(value);
    }
    return paths;
}

// Where this build's preprocessed text (an object's .ii beside it, from gcc -save-temps=obj) goes.
std::string preprocessed_of(const std::string& object)
{
    return object.substr(0, object.size() - 2) + ".ii";
}

CompiledRung compiled_files(const InspectPaths& paths, const std::string& id)
{
    CompiledRung c;
    c.student_file = paths.at("student").front();
    c.also_student.assign(paths.at("student").begin() + 1, paths.at("student").end());
    c.shown_as = "exercises/" + id + ".cu";
    const auto& objects = paths.at("objects");
    const auto& baseline = paths.at("baseline");
    for (std::size_t i = 0; i < objects.size() && i < baseline.size(); ++i) {
        if (!fs::exists(objects[i])) continue;
        c.objects.emplace_back(objects[i], baseline[i]);
        if (fs::exists(preprocessed_of(objects[i]))) c.preprocessed.push_back(preprocessed_of(objects[i]));
    }
    for (const auto& entry : fs::directory_iterator(paths.at("keep").front())) {
        if (entry.path().extension() == ".ptx") c.ptx.push_back(entry.path().string());
        if (entry.path().extension() == ".ii") c.preprocessed.push_back(entry.path().string());
    }
    std::sort(c.ptx.begin(), c.ptx.end());
    std::sort(c.preprocessed.begin(), c.preprocessed.end());
    const std::string kit = lab::kit_root();
    c.include_roots = {kit + "/kit/include", kit + "/harness/include", kit + "/cpu_backend/include"};
    // What the reference calls of the CUDA runtime from its own lines (its comments aside).
    if (const auto reference = lab::try_read_file(kit + "/solutions/" + id + ".cu")) {
        static const std::regex call(R"(\b(cuda[A-Z]\w*)\s*\()");
        const std::string code = code_only(*reference, true);
        for (auto it = std::sregex_iterator(code.begin(), code.end(), call); it != std::sregex_iterator(); ++it)
            if (std::find(c.runtime_calls.begin(), c.runtime_calls.end(), (*it)[1].str()) == c.runtime_calls.end())
                c.runtime_calls.push_back((*it)[1].str());
    }
    return c;
}

void replace_all(std::string& text, const std::string& from, const std::string& to)
{
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
}

// The compiler's messages, with the build tree's copy of the file shown as the student's own.
std::string shown_log(std::string log, const std::string& dir, const std::string& id)
{
    for (const std::string& path : submitted_paths(dir, id)) replace_all(log, path, "exercises/" + id + ".cu");
    if (log.size() > kLogBytes) log = log.substr(0, kLogBytes) + "\n[... the rest cut]\n";
    return log;
}

}  // namespace

std::string grading_build_dir() { return LAB_BINARY_DIR; }

bool is_exercises_tree(const std::string& dir)
{
    return lab::try_read_file(dir + "/CMakeCache.txt").value_or("").find("\nLAB_TREE:STRING=exercises\n") != std::string::npos;
}

std::string grading_tree_refusal(const std::string& dir)
{
    if (!is_exercises_tree(dir)) return "";
    return "this lab-grade was built in " + dir + ", a tree of the exercises (for ./lab replay), where the kit's "
           "rung objects are the skeletons: the integrity checks compare a submission with the reference's "
           "objects, so every rung that goes beyond its skeleton would be refused. Grade with ./lab grade, "
           "which builds a tree of the solutions (build/cpu-solutions or build/cuda-solutions).";
}

std::vector<std::string> submitted_paths(const std::string& dir, const std::string& id)
{
    return {dir + "/grading/submission/" + id + ".cu", dir + "/cpu_sources/grade_kernel_" + id + ".cu"};
}

std::string cpu_backend_tree(int jobs, std::string& why)
{
    const std::string main_tree = grading_build_dir();
    std::ifstream in(main_tree + "/grading/cpu-backend.args");
    if (!in) {
        why = "this grader's build tree has no grading/cpu-backend.args (it is written for CUDA builds: reconfigure it)";
        return "";
    }
    std::vector<std::string> configure{"cmake"};
    std::string settings;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) {
            configure.push_back(line);
            settings += line + "\n";
        }
    const std::string dir = main_tree + "/grader/cpu-backend";
    const std::string log = main_tree + "/grading/cpu-backend.log";
    // The settings the tree was last configured with: a tree made before they changed is configured
    // again with them (a setting is a cache entry, which no later build changes; one taken out of the
    // list stays in the cache: set it to its default instead).
    const std::string configured = dir + "/lab-configured.args";
    fs::create_directories(main_tree + "/grading");
    const bool made = fs::exists(dir + "/build.ninja") || fs::exists(dir + "/Makefile");
    if (!made || lab::try_read_file(configured).value_or("") != settings) {
        if (run(configure, log) != 0) {
            why = "configuring the CPU backend's build tree " + dir + " failed (see " + log + ")";
            return "";
        }
        std::ofstream(configured, std::ios::trunc) << settings;
    }
    if (run({"cmake", "--build", dir, "-j", std::to_string(jobs), "--target", "lab_device", "lab_protocol",
             "lab-cpu-rewrite"},
            log) != 0) {
        why = "the kit's CPU backend did not build in " + dir + " (see " + log + ")";
        return "";
    }
    return dir;
}

std::map<std::string, std::string> reference_explainers(const std::string& dir, const std::vector<std::string>& ids,
                                                        int jobs, std::string& why)
{
    // A tree of the solutions builds the reference as lab-explain-ID, one of the exercises as
    // lab-explain-reference-ID beside the exercise's (harness/explain/CMakeLists.txt).
    const bool exercises = is_exercises_tree(dir);
    std::map<std::string, std::string> programs;
    std::vector<std::string> command{"cmake", "--build", dir, "-j", std::to_string(jobs)};
    for (const std::string& id : ids) {
        const std::string target = (exercises ? "lab-explain-reference-" : "lab-explain-") + id;
        programs[id] = dir + "/bin/" + target;
        command.insert(command.end(), {"--target", target});
    }
    const std::string log = dir + "/grading/explain-reference.log";
    fs::create_directories(dir + "/grading");
    if (ids.empty() || run(command, log) == 0) return programs;
    why = "the reference's explain programs did not build (see " + log + ")";
    return {};
}

std::optional<std::string> linked_runner(const std::string& line)
{
    // "[12/40] Linking CXX executable bin/lab-runner-13_any_row_shape" (CUDA where nvcc links)
    static const std::regex linking(R"(^\[\d+/\d+\] Linking \w+ executable (?:\S*/)?bin/lab-runner-(\w+)\s*$)");
    std::smatch m;
    if (std::regex_match(line, m, linking)) return m[1].str();
    return std::nullopt;
}

Built build_runners(const std::map<std::string, std::string>& files, int jobs, const std::string& dir, bool inspect,
                    bool explain, const Linked& linked)
{
    const std::string grading = dir + "/grading";
    fs::create_directories(grading + "/submission");
    const int lock = open((grading + "/lock").c_str(), O_RDWR | O_CREAT, 0644);
    if (lock < 0 || flock(lock, LOCK_EX) != 0) throw std::runtime_error("cannot lock " + grading + "/lock");
    Built built;
    std::vector<std::string> args{"cmake", "--build", dir, "-j", std::to_string(jobs)};
    // Nothing of an earlier submission survives, of any rung (the next submission's build must not
    // find another student's file, or what the compilers made of it): its runners, the rewritten
    // copies of its files, its objects, preprocessed texts and PTX go; the files are new.
    // (The integrity checks read what is left in the keep folders and beside the objects, so this is
    // also what keeps an earlier build's PTX or preprocessed text from being read as this one's.)
    std::error_code error, ignored;  // a file that cannot be read or removed does not end the walk
    for (const std::string& folder : {dir + "/grader", dir + "/cpu_sources", dir + "/nvcc_check", grading + "/submission"})
        for (auto it = fs::recursive_directory_iterator(folder, error); !error && it != fs::recursive_directory_iterator();
             it.increment(error)) {
            const std::string name = it->path().filename().string();
            const std::string path = it->path().string();
            if (path == dir + "/grader/cpu-backend") {  // a build tree of its own, with its own gradings
                it.disable_recursion_pending();
                continue;
            }
            if (!it->is_regular_file(ignored)) continue;
            if (folder == grading + "/submission") {
                // Each rung's file stays (CMake's configuration needs it), as the placeholder
                // grader/CMakeLists.txt writes.
                const std::string id = it->path().stem().string();
                std::ofstream(path, std::ios::trunc)
                    << "// lab-grade writes the submission's " << id << ".cu here before it builds lab-runner-" << id << ".\n";
            } else if (name.rfind("lab-runner-", 0) == 0 || name.rfind("grade_kernel_", 0) == 0 ||
                       path.find("/grade_kernel_") != std::string::npos || path.find("/grader/keep/") != std::string::npos ||
                       name.rfind("lab-explain-grade-", 0) == 0 || path.find("/lab_explain_grade_") != std::string::npos) {
                fs::remove(it->path(), ignored);
            }
        }
    for (const auto& [id, contents] : files) {
        std::ofstream(grading + "/submission/" + id + ".cu", std::ios::trunc) << contents;
        args.push_back("--target");
        args.push_back("lab-runner-" + id);
        if (explain) {
            args.push_back("--target");
            args.push_back("lab-explain-grade-" + id);
        }
    }
    if (files.empty()) return built;
    args.push_back("--");
    args.push_back("-k");
    args.push_back("0");
    // The build files are brought up to date by the grader itself (nothing of the submission's is
    // compiled for that); then the submission's files are compiled in the sandbox, which hides
    // the hidden cases, the solutions and every other grading's files: an #include of them finds
    // an empty file.
    if (fs::exists(dir + "/build.ninja")) run({"cmake", "--build", dir, "--target", "build.ninja"}, grading + "/configure.log");
    // The reference's objects the integrity checks compare with: the kit's own code, built outside
    // the sandbox (which hides the solutions).
    std::vector<std::string> reference{"cmake", "--build", dir, "-j", std::to_string(jobs)};
    std::map<std::string, InspectPaths> inspected;
    for (const auto& [id, contents] : files) {
        if (!inspect) break;
        const InspectPaths& paths = inspected[id] = inspect_paths(dir, id);
        fs::create_directories(paths.at("keep").front());  // nvcc --keep-dir writes there; emptied above
        for (const std::string& target : paths.at("baseline_targets")) {
            reference.push_back("--target");
            reference.push_back(target);
        }
    }
    if (inspect && run(reference, grading + "/reference.log") != 0)
        throw std::runtime_error("the reference solutions' objects did not build (see " + grading + "/reference.log)");
    SandboxSpec spec;
    spec.writable = {dir};
    spec.readable = {grading + "/submission"};
    spec.gpu = false;
    spec.limits = build_limits(jobs);
    const auto started = fs::file_time_type::clock::now();
    // A program this build made (not one left from before it).
    const auto made_now = [&](const std::string& program) {
        std::error_code error;
        return fs::exists(program, error) && fs::last_write_time(program, error) >= started - std::chrono::seconds(1);
    };
    // Each runner linked, told of once: as its line comes into the log, else after the build.
    std::set<std::string> told;
    const auto tell = [&](const std::string& id, const CompiledRung* compiled) {
        const std::string runner = dir + "/bin/lab-runner-" + id;
        if (!linked || !files.count(id) || told.count(id) || !made_now(runner)) return;
        told.insert(id);
        if (compiled) {
            linked(id, runner, compiled);
        } else {
            std::optional<CompiledRung> c;
            if (inspect) c = compiled_files(inspected.at(id), id);
            linked(id, runner, c && !c->objects.empty() ? &*c : nullptr);
        }
    };
    const std::string build_log = grading + "/build.log";
    std::error_code gone;
    fs::remove(build_log, gone);  // an earlier build's lines are no news of this one's
    std::atomic<bool> building{true};
    std::thread reader;
    std::exception_ptr reader_failed;  // (thrown here once the build has ended)
    if (linked)
        reader = std::thread([&] {
            // Not inherited by what this process starts meanwhile (a runner of a rung linked already,
            // whose sandbox hides grading/): O_CLOEXEC.
            int fd = -1;
            try {
                std::string pending;
                char chunk[4096];
                while (true) {
                    const bool last = !building.load();  // one more read once the build has ended
                    if (fd < 0) fd = ::open(build_log.c_str(), O_RDONLY | O_CLOEXEC);
                    for (ssize_t got; fd >= 0 && (got = ::read(fd, chunk, sizeof chunk)) > 0;)
                        pending.append(chunk, static_cast<std::size_t>(got));
                    for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1))
                        if (const auto id = linked_runner(pending.substr(0, end))) tell(*id, nullptr);
                    if (last) break;
                    std::this_thread::sleep_for(std::chrono::milliseconds(50));
                }
            } catch (...) {
                reader_failed = std::current_exception();
            }
            if (fd >= 0) ::close(fd);
        });
    try {
        run_confined(args, spec, build_log);
    } catch (...) {
        building = false;
        if (reader.joinable()) reader.join();
        throw;
    }
    building = false;
    if (reader.joinable()) reader.join();
    if (reader_failed) std::rethrow_exception(reader_failed);
    for (const auto& [id, contents] : files) {
        const std::string runner = dir + "/bin/lab-runner-" + id, explainer = dir + "/bin/lab-explain-grade-" + id;
        if (explain && made_now(explainer)) built.explainers[id] = explainer;
        if (inspect)
            if (CompiledRung c = compiled_files(inspected.at(id), id); !c.objects.empty()) built.compiled[id] = std::move(c);
        if (made_now(runner)) {
            built.runners[id] = runner;
            tell(id, built.compiled.count(id) ? &built.compiled.at(id) : nullptr);
            continue;
        }
        // Built alone again, for messages about this rung only.
        const std::string log = grading + "/build-" + id + ".log";
        run_confined({"cmake", "--build", dir, "--target", "lab-runner-" + id}, spec, log);
        built.logs[id] = shown_log(lab::read_file(log), dir, id);
        if (built.logs[id].empty()) built.logs[id] = "the build failed without a message";
    }
    return built;  // the lock stays held until this process ends: its runners are used next
}

RunnersBuilding::RunnersBuilding(std::map<std::string, std::string> files, int jobs, bool explain, bool below_the_cases)
{
    worker_ = std::thread([this, files = std::move(files), jobs, explain, below_the_cases] {
        // The CPU backend's runners use every core, against wall-clock limits: the compilers started
        // from here (their niceness inherited) take what the cases leave.
        if (below_the_cases) setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
        const lab::process::Account account("build");
        const auto started = std::chrono::steady_clock::now();
        try {
            Built built = build_runners(files, jobs, grading_build_dir(), true, explain,
                                        [this](const std::string& id, const std::string& runner, const CompiledRung* compiled) {
                                            const std::lock_guard<std::mutex> lock(lock_);
                                            Rung& r = linked_[id];
                                            r.runner = runner;
                                            if (compiled) r.compiled = *compiled;
                                            changed_.notify_all();
                                        });
            const std::lock_guard<std::mutex> lock(lock_);
            built_ = std::move(built);
        } catch (...) {
            const std::lock_guard<std::mutex> lock(lock_);
            error_ = std::current_exception();
        }
        const std::lock_guard<std::mutex> lock(lock_);
        seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        ended_ = true;
        changed_.notify_all();
    });
}

RunnersBuilding::~RunnersBuilding()
{
    if (worker_.joinable()) worker_.join();
}

RunnersBuilding::Rung RunnersBuilding::wait_for(const std::string& id)
{
    std::unique_lock<std::mutex> lock(lock_);
    changed_.wait(lock, [&] { return ended_ || linked_.count(id); });
    if (error_) std::rethrow_exception(error_);
    if (linked_.count(id)) return linked_.at(id);
    // It did not link: what the build left of it.
    Rung r;
    if (built_.logs.count(id)) r.log = built_.logs.at(id);
    if (built_.compiled.count(id)) r.compiled = built_.compiled.at(id);
    return r;
}

double RunnersBuilding::finish()
{
    if (worker_.joinable()) worker_.join();
    if (error_) std::rethrow_exception(error_);
    return seconds_;
}

}  // namespace lab::grading
