// See kit.hpp.
#include "kit.hpp"

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

#include "lab/process.hpp"
#include "lab/registry.hpp"

namespace lab::cli {

namespace fs = std::filesystem;

void say(const std::string& line) { std::cout << line << std::endl; }

std::string read_text(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

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

}  // namespace

Kit::Kit() : root(lab::kit_root()), jobs(default_jobs()), nvcc(find_nvcc())
{
    build = root + "/build";
    // CMake, which this program starts, finds nvcc through CUDACXX even where it is not on PATH.
    if (have_nvcc()) setenv("CUDACXX", nvcc.c_str(), 1);
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
        std::istringstream lines(read_text(name));
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
    std::istringstream release(read_text("/etc/os-release"));
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
    if (cuda || gpu_present())
        throw Failure("the CUDA Toolkit (nvcc) is not installed. It is a prerequisite for running on the GPU: " +
                      cuda_install_advice());
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
    return (have_nvcc() && gpu_present() ? "cuda-" : "cpu-") + tree_name;
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

void Kit::configure_and_build(const std::string& preset, const std::vector<std::string>& targets) const
{
    if (!fs::exists(tree(preset) + "/CMakeCache.txt")) {
        fs::create_directories(build);
        const std::string log = build + "/configure-" + preset + ".log";
        process::Options options;
        options.search_path = true;
        options.directory = root;
        options.output = log;
        if (process::run({"cmake", "--preset", preset}, options) != 0) {
            std::cerr << read_text(log);
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

void Kit::build_quietly(const std::string& preset, const std::vector<std::string>& targets, const std::string& log) const
{
    if (!fs::exists(tree(preset) + "/CMakeCache.txt")) {
        say("(setting up build/" + preset + ": about a minute, once)");
        configure_and_build(preset, targets);
        return;
    }
    std::vector<std::string> command{"cmake", "--build", tree(preset), "-j", std::to_string(jobs)};
    for (const auto& target : targets) command.insert(command.end(), {"--target", target});
    process::Options options;
    options.search_path = true;
    options.output = log;
    if (process::run(command, options) == 0) return;
    std::istringstream lines(read_text(log));
    for (std::string line; std::getline(lines, line);)
        if (!(line.size() > 1 && line[0] == '[' && line.find("] ") != std::string::npos && std::isdigit(static_cast<unsigned char>(line[1]))) &&
            line.rfind("ninja: build stopped", 0) != 0)
            std::cout << line << '\n';
    throw Failure("your file did not build: the compiler's messages are above (all of it: " + log +
                  "). A message from nvcc means a GPU would refuse the file, even where the CPU backend could run it.");
}

void Kit::run_ctest(const std::string& preset, const std::string& junit, const std::vector<std::string>& args,
                    const std::vector<std::pair<std::string, std::string>>& environment) const
{
    std::vector<std::string> command{"ctest", "--test-dir", tree(preset), "-j", std::to_string(jobs), "--output-junit", junit};
    command.insert(command.end(), args.begin(), args.end());
    fs::remove(junit);
    process::Options options;
    options.search_path = true;
    options.environment = environment;
    options.output = tree(preset) + "/ctest.log";
    process::run(command, options);  // failing tests are read from the JUnit file
    std::error_code error;
    if (!fs::exists(junit, error) || fs::file_size(junit, error) == 0)
        throw Failure("ctest wrote no results for build/" + preset + "; its log is " + options.output);
}

int Kit::summary(const std::string& preset, const std::vector<std::string>& args) const
{
    std::vector<std::string> command{tool(preset, "grader/lab-summary")};
    command.insert(command.end(), args.begin(), args.end());
    return run(command);
}

int Kit::lab_grade(const std::string& tree_name, const std::string& subcommand, const std::vector<std::string>& args) const
{
    require_toolchain();
    const std::string preset = preset_for(tree_name);
    configure_and_build(preset, {"lab-grade"});
    std::vector<std::string> command{tool(preset, "grader/lab-grade"), subcommand};
    command.insert(command.end(), args.begin(), args.end());
    return run(command);
}

bool Kit::check_tree(const std::string& preset, const std::string& expectation, const std::vector<std::string>& args,
                     const std::vector<std::pair<std::string, std::string>>& environment) const
{
    const std::string junit = tree(preset) + "/" + expectation + ".xml";
    run_ctest(preset, junit, args, environment);
    return summary(preset, {"--junit", junit, "--expect", expectation}) == 0;
}

}  // namespace lab::cli
