// TRUSTED SIDE. See sandbox.hpp.
#include "sandbox.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "builder.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"

namespace lab::grading {

namespace {

namespace fs = std::filesystem;

std::mutex g_hidden_mutex;
std::vector<std::string> g_hidden_extra;

std::string absolute(const std::string& path)
{
    std::error_code error;
    const fs::path full = fs::weakly_canonical(fs::absolute(path), error);
    return error ? path : full.string();
}

// What no submission may read: the hidden cases, the reference solutions, the corpus (its
// expected verdicts), every grading's files in the build tree, and this run's report and rubric.
std::vector<std::string> hidden_paths()
{
    std::vector<std::string> paths{kit_root() + "/grader/hidden_cases.json", kit_root() + "/solutions",
                                   kit_root() + "/grader/corpus", grading_build_dir() + "/grading"};
    std::lock_guard<std::mutex> lock(g_hidden_mutex);
    paths.insert(paths.end(), g_hidden_extra.begin(), g_hidden_extra.end());
    return paths;
}

// An empty file dated 1970, which hidden files are replaced by.
std::string empty_file()
{
    static const std::string path = [] {
        const std::string file = grading_build_dir() + "/sandbox-empty";
        std::error_code error;
        if (!fs::exists(file, error) || fs::file_size(file, error) != 0) {
            fs::remove(file, error);
            std::ofstream{file};
        }
        const timespec epoch[2] = {{0, 0}, {0, 0}};
        utimensat(AT_FDCWD, file.c_str(), epoch, 0);
        return file;
    }();
    return path;
}

std::vector<std::string> gpu_nodes()
{
    std::vector<std::string> nodes;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator("/dev", error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("nvidia", 0) == 0 && !entry.is_directory(error)) nodes.push_back(entry.path().string());
    }
    return nodes;
}

// The environment a sandboxed program gets: these variables of the grader's, and nothing else
// (no CI tokens).
std::vector<std::string> passed_environment()
{
    // What a build or a runner needs to find its tools and libraries, and the kit's own settings.
    return {"PATH", "LD_LIBRARY_PATH", "LANG", "LAB_ROOT", "LAB_CPU_WORKERS", "CUDA_VISIBLE_DEVICES", "CUDA_HOME"};
}

// The namespaces: all bubblewrap knows (network, processes, IPC, host name, user, cgroup).
const std::vector<std::string> kIsolation{"--unshare-all", "--die-with-parent", "--new-session"};

}  // namespace

const std::string& bwrap()
{
    static const std::string path = [] {
        if (const char* set = std::getenv("LAB_BWRAP"); set && *set) return std::string(set);
        if (access("/usr/bin/bwrap", X_OK) == 0) return std::string("/usr/bin/bwrap");
        return lab::process::find_program("bwrap");
    }();
    return path;
}

std::string sandbox_missing()
{
    static const std::string why = [] {
        if (bwrap().empty()) return std::string("bubblewrap (bwrap) is not installed: apt-get install bubblewrap");
        std::vector<std::string> probe{bwrap(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"};
        probe.insert(probe.end(), kIsolation.begin(), kIsolation.end());
        probe.insert(probe.end(), {"--", "/bin/true"});
        lab::process::Options quiet;
        quiet.output = "/dev/null";
        if (lab::process::run(probe, quiet) != 0)
            return std::string("bubblewrap cannot make its namespaces on this machine (user namespaces refused?)");
        return std::string();
    }();
    return why;
}

void hide_in_sandbox(const std::string& path)
{
    std::lock_guard<std::mutex> lock(g_hidden_mutex);
    g_hidden_extra.push_back(absolute(path));
}

std::vector<std::string> sandboxed(const std::vector<std::string>& command, const SandboxSpec& spec)
{
    if (!sandbox_missing().empty()) return command;
    std::vector<std::string> wrapped{bwrap(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/sys",
                                     "/sys", "--tmpfs", "/tmp"};
    if (spec.gpu)
        for (const auto& node : gpu_nodes()) wrapped.insert(wrapped.end(), {"--dev-bind", node, node});
    // /tmp is the sandbox's own; the kit and its build tree are seen again even when they live there.
    const std::string build_root = absolute(grading_build_dir());
    for (const auto& tree : {kit_root(), build_root}) wrapped.insert(wrapped.end(), {"--ro-bind", tree, tree});
    const std::vector<std::string> hidden = hidden_paths();
    const auto inside_hidden = [&](const std::string& path) {
        for (const auto& h : hidden)
            if (path == h || path.rfind(h + "/", 0) == 0) return true;
        return false;
    };
    // Mounts stack in order: writable trees, then the secrets over them, then what may be seen
    // or written inside a hidden folder.
    for (const auto& path : spec.writable)
        if (!inside_hidden(path)) wrapped.insert(wrapped.end(), {"--bind", path, path});
    std::error_code error;
    const std::string empty = empty_file();
    for (const auto& path : hidden) {
        // A report folder that holds the kit (--out .) stays in sight, read-only like the rest.
        if (!fs::exists(path, error) || (kit_root() + "/").rfind(path + "/", 0) == 0 ||
            (build_root + "/").rfind(path + "/", 0) == 0)
            continue;
        if (path == kit_root() + "/solutions") {
            // The build files name each solution (the planted mistakes are made from them): each
            // stays a file, empty and older than the build, so that nothing is rebuilt for it.
            for (const auto& entry : fs::directory_iterator(path, error))
                if (entry.is_regular_file(error)) wrapped.insert(wrapped.end(), {"--ro-bind", empty, entry.path().string()});
        } else if (fs::is_directory(path, error)) {
            wrapped.insert(wrapped.end(), {"--tmpfs", path});
        } else {
            wrapped.insert(wrapped.end(), {"--ro-bind", empty, path});
        }
    }
    for (const auto& path : spec.readable) wrapped.insert(wrapped.end(), {"--ro-bind", path, path});
    for (const auto& path : spec.writable)
        if (inside_hidden(path)) wrapped.insert(wrapped.end(), {"--bind", path, path});
    wrapped.push_back("--clearenv");
    for (const auto& name : passed_environment())
        if (const char* value = std::getenv(name.c_str())) wrapped.insert(wrapped.end(), {"--setenv", name, value});
    wrapped.insert(wrapped.end(), {"--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"});
    wrapped.insert(wrapped.end(), kIsolation.begin(), kIsolation.end());
    wrapped.push_back("--");
    wrapped.insert(wrapped.end(), command.begin(), command.end());
    return wrapped;
}

}  // namespace lab::grading
