// See kit.hpp.
#include "kit.hpp"

#include <dlfcn.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "console.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"

namespace lab::cli {

namespace fs = std::filesystem;

void say(const std::string& line) { std::cout << line << std::endl; }

namespace {

int default_jobs()
{
    if (const char* set = std::getenv("LAB_JOBS"); set && *set) {
        try {
            const int jobs = std::stoi(set);
            if (jobs > 0) return jobs;
        } catch (const std::exception&) {
        }
        throw Failure(std::string("LAB_JOBS=") + set + " is not a positive number of jobs");
    }
    const unsigned cores = std::thread::hardware_concurrency();
    return cores ? static_cast<int>(cores) : 2;
}

std::string find_nvcc()
{
    if (const char* set = std::getenv("CUDACXX"); set && *set && access(set, X_OK) == 0) return set;
    if (std::string found = process::find_program("nvcc"); !found.empty()) return found;
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
    return "";
}

// Compiles go through ccache where it is installed (LAB_CCACHE=no: never). The self-test builds
// whole copies of the kit (the students' release, the Gradescope bundle, a Slurm node's tree), and
// these find most of their objects in what build/ compiled already: 155 s for the release's build
// on 2 cores, 45 s with the cache. Paths under the kit are hashed relative to it, so a copy inside
// build/ shares entries; a nested ./lab keeps the outer kit's cache and root. The grader's sandboxed
// builds of a submission never use it (grader/trusted/sandbox.cpp sets CCACHE_DISABLE). The
// bootstrap (./lab) sets the same before it builds this program; this is for the program run alone.
void use_compiler_cache(const std::string& root, const std::string& build)
{
    const char* wanted = std::getenv("LAB_CCACHE");
    if (wanted && std::string(wanted) == "no") return;
    const std::string ccache = process::find_program("ccache");
    if (ccache.empty()) return;
    setenv("CCACHE_DIR", (build + "/ccache").c_str(), 0);
    setenv("CCACHE_BASEDIR", root.c_str(), 0);
    setenv("CCACHE_NOHASHDIR", "1", 0);  // the same object from another copy's build folder
    // CMake takes these as the launchers of a tree it configures anew. Not nvcc's: a tree built with
    // nvcc through ccache (Kit.Release's on an H100) read a NaN in a solved exercise's speed test, not
    // yet explained; a wrong object is a wrong verdict, so nvcc compiles every time.
    for (const char* language : {"C", "CXX"})
        setenv(("CMAKE_" + std::string(language) + "_COMPILER_LAUNCHER").c_str(), ccache.c_str(), 0);
}

}  // namespace

Kit::Kit() : root(lab::kit_root()), jobs(default_jobs()), nvcc(find_nvcc())
{
    build = root + "/build";
    // CMake, which this program starts, finds nvcc through CUDACXX even where it is not on PATH.
    if (have_nvcc()) setenv("CUDACXX", nvcc.c_str(), 1);
    use_compiler_cache(root, build);
}


bool Kit::gpu_present() const
{
    static const bool present = [] {
        char name[] = "/tmp/lab-nvidia-smi-XXXXXX";
        const int fd = mkstemp(name);
        if (fd < 0) return false;
        close(fd);
        process::Options options;
        options.output = name;
        options.search_path = true;
        const bool listed = process::run({"nvidia-smi", "-L"}, options) == 0;
        std::istringstream lines(lab::read_file(name));
        fs::remove(name);
        for (std::string line; std::getline(lines, line);)
            if (listed && line.rfind("GPU", 0) == 0) return true;
        return false;
    }();
    return present;
}

std::string Kit::compute_sanitizer() const
{
    if (std::string found = process::find_program("compute-sanitizer"); !found.empty()) return found;
    if (have_nvcc()) {
        const std::string beside = fs::path(nvcc).parent_path().string() + "/compute-sanitizer";
        if (access(beside.c_str(), X_OK) == 0) return beside;
    }
    return "";
}

std::string cuda_install_advice()
{
    // NVIDIA's apt repositories are named by release and architecture: debian12, ubuntu2204,
    // ubuntu2404; x86_64 or sbsa (64-bit Arm servers).
    std::string id, version;
    std::istringstream release(lab::read_file("/etc/os-release"));
    for (std::string line; std::getline(release, line);) {
        const auto value = [&](const std::string& key) {
            std::string v = line.substr(key.size());
            v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
            return v;
        };
        if (line.rfind("ID=", 0) == 0) id = value("ID=");
        if (line.rfind("VERSION_ID=", 0) == 0) version = value("VERSION_ID=");
    }
    version.erase(std::remove(version.begin(), version.end(), '.'), version.end());
#if defined(__aarch64__)
    const std::string arch = "sbsa";
#else
    const std::string arch = "x86_64";
#endif
    const bool known = (id == "debian" && version == "12") || (id == "ubuntu" && (version == "2204" || version == "2404"));
    const std::string repo = known ? id + version : "<debian12|ubuntu2204|ubuntu2404>";
    return "install CUDA 12 or 13 from NVIDIA's apt repository for " + (known ? "this " + id + " release" : std::string("your release")) +
           ", as root:\n"
           "       wget https://developer.download.nvidia.com/compute/cuda/repos/" + repo + "/" + arch + "/cuda-keyring_1.1-1_all.deb\n"
           "       dpkg -i cuda-keyring_1.1-1_all.deb && apt-get update && apt-get install cuda-toolkit-13-0\n"
           "     then run this again (nvcc is then in /usr/local/cuda/bin, where the kit looks). The distributions' own\n"
           "     nvidia-cuda-toolkit packages are older CUDA releases (Debian 12's is CUDA 11.8), too old for this kit.";
}

void Kit::require_toolchain(bool cuda) const
{
    if (have_nvcc()) return;
    const char* backend = std::getenv("LAB_BACKEND");
    const bool cpu_chosen = backend && std::string(backend) == "cpu";
    if (cuda || (gpu_present() && !cpu_chosen))
        throw Failure("the CUDA Toolkit (nvcc) is not installed. It is a prerequisite for running on the GPU: " +
                          cuda_install_advice() + "\n     Or run on the kit's CPU backend instead: LAB_BACKEND=cpu ./lab " +
                          "<command>",
                      2);
    static bool said = false;
    if (!said) say("lab: no CUDA Toolkit (nvcc) here; kernels build and run on the kit's CPU backend instead.");
    said = true;
}

bool Kit::is_release() const
{
    return std::filesystem::exists(root + "/.lab-release");
}

void Kit::require_instructor_kit(const std::string& command) const
{
    if (is_release())
        throw Failure("this is the students' release of the kit (" + root + "/.lab-release): ./lab " + command +
                          " is an instructor's command and needs the instructor's kit, with its solutions and grader.\n"
                          "     Here: ./lab status, ./lab check NN, ./lab watch, ./lab hint NN, ./lab bench NN, ./lab test, ./lab list, ./lab replay.",
                      2);
}

std::string Kit::preset_for(const std::string& tree_name) const
{
    const char* backend = std::getenv("LAB_BACKEND");
    const std::string chosen = backend ? backend : "";
    if (chosen == "cpu") return "cpu-" + tree_name;
    if (chosen == "cuda") return "cuda-" + tree_name;
    if (!chosen.empty() && chosen != "auto")
        throw Failure("LAB_BACKEND=" + chosen + " is neither cpu, cuda nor auto: unset it, or pick one", 2);
    return (have_nvcc() && gpu_present() ? "cuda-" : "cpu-") + tree_name;
}

namespace {

// "13.0" -> 13000, as CUDA numbers its releases; 0 when nvcc says no release.
int nvcc_release(const std::string& nvcc)
{
    char name[] = "/tmp/lab-nvcc-version-XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) return 0;
    close(fd);
    process::Options options;
    options.output = name;
    process::run({nvcc, "--version"}, options);
    const std::string text = lab::read_file(name);
    fs::remove(name);
    const auto at = text.find("release ");
    if (at == std::string::npos) return 0;
    int major = 0, minor = 0;
    if (std::sscanf(text.c_str() + at, "release %d.%d", &major, &minor) != 2) return 0;
    return major * 1000 + minor * 10;
}

std::string release_text(int version) { return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10); }

}  // namespace

void Kit::require_usable_gpu() const
{
    // The driver API through dlopen: the ./lab program links no CUDA library, and this is the
    // library every CUDA program ends up in.
    using Init = int (*)(unsigned);
    using Count = int (*)(int*);
    using Version = int (*)(int*);
    using ErrorName = int (*)(int, const char**);
    const std::string fix = " Or run on the kit's CPU backend instead: LAB_BACKEND=cpu ./lab run";
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library)
        throw Failure(std::string("nvidia-smi lists a GPU, but the NVIDIA driver's library (libcuda.so.1) cannot be loaded: ") +
                          dlerror() + ". Install or repair the NVIDIA driver (nvidia-smi should then work)." + fix,
                      2);
    const auto init = reinterpret_cast<Init>(dlsym(library, "cuInit"));
    const auto count = reinterpret_cast<Count>(dlsym(library, "cuDeviceGetCount"));
    const auto version = reinterpret_cast<Version>(dlsym(library, "cuDriverGetVersion"));
    const auto error_name = reinterpret_cast<ErrorName>(dlsym(library, "cuGetErrorName"));
    if (!init || !count || !version) throw Failure("the NVIDIA driver's library (libcuda.so.1) is incomplete: reinstall the driver." + fix, 2);
    const auto named = [&](int code) {
        const char* name = nullptr;
        if (error_name) error_name(code, &name);
        return std::string(name ? name : "error") + " (" + std::to_string(code) + ")";
    };
    int devices = 0;
    if (const int code = init(0); code != 0) {
        const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        std::string why = "the NVIDIA driver cannot open the GPU that nvidia-smi lists: cuInit says " + named(code) + ".";
        if (code == 100 && visible)
            why += " CUDA_VISIBLE_DEVICES=" + std::string(visible) + " hides every GPU from CUDA programs: unset it.";
        else if (code == 803 || code == 804)
            why += " The driver's kernel module and its library differ (a driver update without a reboot?): reboot, or reinstall the driver.";
        else
            why += " Check the driver (nvidia-smi; dmesg for NVRM lines), and that this user may open /dev/nvidia*.";
        throw Failure(why + fix, 2);
    }
    if (count(&devices) != 0 || devices == 0)
        throw Failure("the NVIDIA driver opens, but offers no GPU to CUDA programs (CUDA_VISIBLE_DEVICES, or a GPU in use by "
                      "another container?)." + fix, 2);
    int driver = 0;
    version(&driver);
    const int toolkit = have_nvcc() ? nvcc_release(nvcc) : 0;
    if (driver > 0 && toolkit > 0 && driver / 1000 < toolkit / 1000)
        throw Failure("the NVIDIA driver runs CUDA up to " + release_text(driver) + ", but nvcc is CUDA " + release_text(toolkit) +
                          ": programs it builds would not start. Update the driver (CUDA 13 needs the 580 series or newer), or "
                          "use a CUDA Toolkit no newer than the driver." + fix,
                      2);
}

void Kit::require_disk_space(double gib) const
{
    struct statvfs info {};
    std::string where = root;
    if (fs::exists(build)) where = build;
    if (statvfs(where.c_str(), &info) != 0) return;  // nothing to go by: the build will say
    const double free = static_cast<double>(info.f_bavail) * static_cast<double>(info.f_frsize) / double(1u << 30);
    if (free >= gib) return;
    char text[240];
    std::snprintf(text, sizeof text, "only %.1f GiB of disk is free where the kit builds (%s), and this needs about %.1f GiB: ",
                  free, where.c_str(), gib);
    throw Failure(std::string(text) + "free some space (old build trees go with rm -rf " + build + "/<tree>), then run this again.", 2);
}

int Kit::run(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& environment) const
{
    std::cout.flush();
    process::Options options;
    options.search_path = true;
    options.environment = environment;
    return process::run(argv, options);
}

std::string Kit::python_with(const std::string& module) const
{
    const std::vector<std::string> candidates{"/usr/bin/python3", "python3"};
    for (const std::string& python : candidates) {
        process::Options options;
        options.search_path = true;
        options.output = "/dev/null";
        if (process::run({python, "-c", "import " + module}, options) == 0) return python;
    }
    return fs::exists(candidates.front()) ? candidates.front() : "python3";
}

std::vector<std::string> Kit::configure_command(const std::string& preset) const
{
    std::vector<std::string> command{"cmake", "--preset", preset};
    // A CUDA tree on a machine with a GPU is built for that GPU alone (the kit's list, 75;90, is for
    // a build that must run anywhere); CUDAARCHS, when set, decides instead.
    const char* arches = std::getenv("CUDAARCHS");
    if (preset.rfind("cuda-", 0) == 0 && !(arches && *arches) && gpu_present())
        command.push_back("-DCMAKE_CUDA_ARCHITECTURES=native");
    return command;
}

void Kit::configure_and_build(const std::string& preset, const std::vector<std::string>& targets) const
{
    // A tree whose configuring was cut short (Ctrl-C) has a cache but no build file: configure again.
    if (!fs::exists(tree(preset) + "/CMakeCache.txt") || !fs::exists(tree(preset) + "/build.ninja")) {
        fs::create_directories(build);
        const std::string log = build + "/configure-" + preset + ".log";
        process::Options options;
        options.search_path = true;
        options.directory = root;
        options.output = log;
        if (process::run(configure_command(preset), options) != 0) {
            std::cerr << lab::read_file(log);
            throw Failure("configuring build/" + preset + " failed (CMake's messages are above, and in " + log + ")");
        }
    }
    std::vector<std::string> command{"cmake", "--build", tree(preset), "-j", std::to_string(jobs)};
    for (const auto& target : targets) command.insert(command.end(), {"--target", target});
    if (run(command) != 0)
        throw Failure("building build/" + preset +
                      " failed (see the compiler's messages above; a message from nvcc means a GPU build would refuse the "
                      "file too, even though the CPU backend could run it)");
}

namespace {

// The first compiler error of a build log, with its file and line, and the lines that explain it
// (up to the next build step); "" when the log holds none.
std::string first_error(const std::string& log)
{
    std::istringstream lines(log);
    std::vector<std::string> all;
    for (std::string line; std::getline(lines, line);) all.push_back(line);
    static const std::vector<std::string> marks{": error:", ": fatal error:", "): error:", "error: ", "CMake Error", "No space left on device"};
    for (std::size_t i = 0; i < all.size(); ++i) {
        bool found = false;
        for (const auto& mark : marks) found |= all[i].find(mark) != std::string::npos;
        if (!found) continue;
        std::string text;
        for (std::size_t k = i; k < all.size() && k < i + 12; ++k) {
            if (k > i && (all[k].rfind("[", 0) == 0 || all[k].rfind("ninja: ", 0) == 0 || all[k].rfind("FAILED: ", 0) == 0)) break;
            text += "  " + all[k] + "\n";
        }
        return text;
    }
    return {};
}

}  // namespace

int Kit::build_targets(const std::string& preset, const std::vector<std::string>& targets, const std::string& log,
                       const std::function<void(int, int)>& progress) const
{
    std::vector<std::string> command{"cmake", "--build", tree(preset), "-j", std::to_string(jobs)};
    for (const auto& target : targets) command.insert(command.end(), {"--target", target});
    return run_logged(command, log, [&](const std::string& line) {
        int done = 0, total = 0;
        if (progress && std::sscanf(line.c_str(), "[%d/%d]", &done, &total) == 2) progress(done, total);
    });
}

Failure Kit::build_failure(const std::string& preset, const std::string& log) const
{
    const std::string text = lab::read_file(log);
    if (text.find("No space left on device") != std::string::npos)
        return Failure("the disk filled up while building build/" + preset + ": free some space, then run this again (it "
                       "goes on from what was built). The log: " + log, 2);
    const std::string error = first_error(text);
    return Failure("building build/" + preset + " failed. The first error:\n" + (error.empty() ? "  (none found in the log)\n" : error) +
                   "The whole log: " + log + " (again with: cmake --build " + tree(preset) + ")");
}

int Kit::build_with_progress(const std::string& preset, const std::vector<std::string>& targets) const
{
    const std::string dir = tree(preset);
    if (!fs::exists(dir + "/CMakeCache.txt") || !fs::exists(dir + "/build.ninja")) {
        Phase phase("configuring build/" + preset);
        fs::create_directories(build);
        const std::string log = build + "/configure-" + preset + ".log";
        const int status = run_logged(configure_command(preset), log, {}, {}, root);
        stop_if_interrupted("build/" + preset + " is configured again on the next run");
        if (status != 0) {
            const std::string error = first_error(lab::read_file(log));
            throw Failure("configuring build/" + preset + " failed:\n" + (error.empty() ? lab::read_file(log) : error) +
                          "The whole log: " + log);
        }
        phase.done("configured build/" + preset);
    }
    Phase phase("building build/" + preset);
    const std::string log = dir + "/build.log";
    int steps = 0;
    const int status = build_targets(preset, targets, log, [&](int done, int total) {
        steps = done;
        phase.update("building " + std::to_string(done) + "/" + std::to_string(total));
    });
    stop_if_interrupted("the next run goes on from the part of build/" + preset + " already built");
    if (status != 0) throw build_failure(preset, log);
    phase.done(steps ? "built build/" + preset + " (" + std::to_string(steps) + " steps)" : "build/" + preset + " is up to date");
    return steps;
}

void Kit::build_quietly(const std::string& preset, const std::vector<std::string>& targets, const std::string& log,
                        bool errors_in_failure) const
{
    if (!fs::exists(tree(preset) + "/CMakeCache.txt")) {
        // The first time: a progress line, never the compiler's lines (unless one fails).
        say("(setting up build/" + preset + ": about a minute, once)");
        build_with_progress(preset, targets);
        return;
    }
    std::vector<std::string> command{"cmake", "--build", tree(preset), "-j", std::to_string(jobs)};
    for (const auto& target : targets) command.insert(command.end(), {"--target", target});
    process::Options options;
    options.search_path = true;
    options.output = log;
    if (process::run(command, options) == 0) return;
    std::istringstream lines(lab::read_file(log));
    std::string errors;
    for (std::string line; std::getline(lines, line);)
        if (!(line.size() > 1 && line[0] == '[' && line.find("] ") != std::string::npos && std::isdigit(static_cast<unsigned char>(line[1]))) &&
            line.rfind("ninja: build stopped", 0) != 0)
            errors += line + '\n';
    if (errors_in_failure) throw Failure(errors + "your file did not build: the compiler's messages are above (all of it: " + log +
                                         "). A message from nvcc means a GPU would refuse the file, even where the CPU backend could run it.");
    std::cout << errors;
    throw Failure("your file did not build: the compiler's messages are above (all of it: " + log +
                  "). A message from nvcc means a GPU would refuse the file, even where the CPU backend could run it.");
}

int Kit::summary(const std::string& preset, const std::vector<std::string>& args) const
{
    std::vector<std::string> command{program(preset, "lab-summary")};
    command.insert(command.end(), args.begin(), args.end());
    return run(command);
}

int Kit::lab_grade(const std::string& tree_name, const std::string& subcommand, const std::vector<std::string>& args) const
{
    require_toolchain();
    const std::string preset = preset_for(tree_name);
    const bool help = std::find(args.begin(), args.end(), "--help") != args.end() ||
                      std::find(args.begin(), args.end(), "-h") != args.end();
    if (!help) {
        build_with_progress(preset, {"lab-grade"});
    } else {
        // The usage alone on the standard output: the build (a few minutes the first time) into a log,
        // a line on the standard error while it runs, and nothing more unless it fails.
        if (!fs::exists(program(preset, "lab-grade"))) std::cerr << "lab: building the grader first (once)...\n";
        const std::string log = build + "/help-" + preset + ".log";
        fs::create_directories(build);
        if (!fs::exists(tree(preset) + "/build.ninja") &&
            run_logged(configure_command(preset), log, {}, {}, root) != 0)
            throw Failure("configuring build/" + preset + " failed; the log: " + log);
        if (build_targets(preset, {"lab-grade"}, log) != 0) throw build_failure(preset, log);
    }
    std::vector<std::string> command{program(preset, "lab-grade"), subcommand};
    command.insert(command.end(), args.begin(), args.end());
    // Its usage names the command as it was typed (./lab grade-all), not the build tree's program.
    return run(command, {{"LAB_COMMAND_NAME", "./lab"}});
}

}  // namespace lab::cli
