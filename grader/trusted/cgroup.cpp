// TRUSTED SIDE. See cgroup.hpp.
#include "cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "lab/process.hpp"
#include "lab/text.hpp"

namespace lab::grading {

namespace {

const std::string kRoot = "/sys/fs/cgroup";

bool has_word(const std::string& text, const std::string& word)
{
    std::istringstream words(text);
    for (std::string w; words >> w;)
        if (w == word) return true;
    return false;
}

// The number after `key` in a flat keyed file (pids.events, memory.events, memory.oom_control).
long long keyed(const std::string& path, const std::string& key)
{
    std::istringstream lines(lab::read_file(path));
    for (std::string k; lines >> k;) {
        long long value = 0;
        if (!(lines >> value)) return 0;
        if (k == key) return value;
    }
    return 0;
}

// "" when written; else why not.
std::string write_file(const std::string& path, const std::string& text)
{
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return path + ": " + std::strerror(errno);
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const int error = errno;
    close(fd);
    return ok ? "" : path + ": " + std::strerror(error);
}

struct Controller {
    std::string root;  // where its cgroups are made; "" when it cannot be used
    bool v2 = false;
    std::string missing;
};

// Where a controller's cgroups are made: under cgroup v2's root, with the controller enabled for
// its children, or in cgroup v1's hierarchy of that controller.
Controller locate(const std::string& name)
{
    if (has_word(lab::read_file(kRoot + "/cgroup.controllers"), name)) {
        if (!has_word(lab::read_file(kRoot + "/cgroup.subtree_control"), name)) {
            const std::string error = write_file(kRoot + "/cgroup.subtree_control", "+" + name);
            if (!error.empty()) return {"", true, "cgroup v2 has " + name + " but it cannot be enabled (" + error + ")"};
        }
        return {kRoot, true, ""};
    }
    if (access((kRoot + "/" + name + "/cgroup.procs").c_str(), F_OK) == 0) return {kRoot + "/" + name, false, ""};
    return {"", false, "this machine has no " + name + " cgroup controller in " + kRoot};
}

const Controller& pids_controller()
{
    static const Controller c = locate("pids");
    return c;
}

const Controller& memory_controller()
{
    static const Controller c = locate("memory");
    return c;
}

std::string fresh_name()
{
    static std::atomic<unsigned> counter{0};
    return "lab-grade-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

// "" when a cgroup could be made under `c`, given a limit and removed again; else why not.
std::string probe(const Controller& c, const std::string& limit_file, const std::string& value)
{
    if (c.root.empty()) return c.missing;
    const std::string dir = c.root + "/" + fresh_name();
    if (mkdir(dir.c_str(), 0755) != 0) return "cannot make a cgroup in " + c.root + ": " + std::strerror(errno);
    const std::string error = write_file(dir + "/" + limit_file, value);
    rmdir(dir.c_str());
    return error.empty() ? "" : "cannot set a cgroup's limit (" + error + ")";
}

// The CPU seconds everything in a cgroup folder has used: v2's cpu.stat, v1's cpuacct.usage.
double cpu_seconds_in(const std::string& dir, bool v2)
{
    if (v2) return static_cast<double>(keyed(dir + "/cpu.stat", "usage_usec")) * 1e-6;
    const std::optional<std::string> text = lab::try_read_file(dir + "/cpuacct.usage");
    return text ? std::strtod(text->c_str(), nullptr) * 1e-9 : 0.0;
}

// Kills every process in the cgroup folder and removes it, waiting up to two seconds for them to go.
// With `cpu`, what they used on the CPU, read once the folder is empty (and so final).
void empty_and_remove(const std::string& dir, double* cpu = nullptr, bool v2 = false)
{
    const bool can_kill_all = access((dir + "/cgroup.kill").c_str(), F_OK) == 0;
    for (int round = 0; round < 200; ++round) {
        const double used = cpu ? cpu_seconds_in(dir, v2) : 0.0;
        if (rmdir(dir.c_str()) == 0) {
            if (cpu) *cpu = used;
            return;
        }
        if (errno == ENOENT) return;
        if (can_kill_all) {
            write_file(dir + "/cgroup.kill", "1");
        } else {
            std::istringstream pids(lab::read_file(dir + "/cgroup.procs"));
            for (pid_t pid; pids >> pid;) kill(pid, SIGKILL);
        }
        usleep(10000);
    }
}

}  // namespace

const CgroupSupport& cgroup_support()
{
    static const CgroupSupport support = [] {
        CgroupSupport s;
        s.processes = probe(pids_controller(), "pids.max", "1000");
        s.memory = probe(memory_controller(), memory_controller().v2 ? "memory.max" : "memory.limit_in_bytes",
                         std::to_string(std::uint64_t{1} << 30));
        return s;
    }();
    return support;
}

Cgroup::Cgroup(const CgroupLimits& limits) : limits_(limits)
{
    const CgroupSupport& support = cgroup_support();
    const std::string name = fresh_name();
    auto make = [&](const Controller& c) {
        const std::string dir = c.root + "/" + name;
        if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
            throw std::runtime_error("cannot make the cgroup " + dir + ": " + std::strerror(errno));
        for (const auto& f : folders_)
            if (f == dir) return dir;
        folders_.push_back(dir);
        return dir;
    };
    auto set = [](const std::string& file, const std::string& value) {
        const std::string error = write_file(file, value);
        if (!error.empty()) throw std::runtime_error("cannot set a cgroup's limit: " + error);
    };
    if (limits.processes > 0 && support.processes.empty()) {
        pids_dir_ = make(pids_controller());
        set(pids_dir_ + "/pids.max", std::to_string(limits.processes));
    }
    // CPU time counted: in v2 every cgroup has cpu.stat, so the folder the limits use (or one of
    // its own); in v1 one in cpuacct's hierarchy. Where none can be made, wait4 counts what it sees.
    try {
        if (access((kRoot + "/cgroup.controllers").c_str(), F_OK) == 0) {
            cpu_dir_ = make(Controller{kRoot, true, ""});
            cpu_v2_ = true;
        } else if (access((kRoot + "/cpuacct/cgroup.procs").c_str(), F_OK) == 0) {
            cpu_dir_ = make(Controller{kRoot + "/cpuacct", false, ""});
        }
    } catch (const std::runtime_error&) {
        cpu_dir_.clear();
    }
    account_ = lab::process::current_account();
    if (limits.memory_bytes > 0 && support.memory.empty()) {
        memory_dir_ = make(memory_controller());
        memory_v2_ = memory_controller().v2;
        const std::string bytes = std::to_string(limits.memory_bytes);
        if (memory_v2_) {
            set(memory_dir_ + "/memory.max", bytes);
            write_file(memory_dir_ + "/memory.swap.max", "0");  // absent without swap accounting
        } else {
            set(memory_dir_ + "/memory.limit_in_bytes", bytes);
            write_file(memory_dir_ + "/memory.memsw.limit_in_bytes", bytes);  // likewise
        }
    }
}

Cgroup::~Cgroup()
{
    double cpu = 0;
    for (const auto& dir : folders_)
        if (dir == cpu_dir_) empty_and_remove(dir, &cpu, cpu_v2_);
        else empty_and_remove(dir);
    if (!cpu_dir_.empty()) lab::process::add_cpu(account_, cpu);
}

std::string Cgroup::limit_reached() const
{
    std::string why;
    if (!memory_dir_.empty() &&
        keyed(memory_dir_ + (memory_v2_ ? "/memory.events" : "/memory.oom_control"), "oom_kill") > 0)
        why = "it went over the memory limit of " + std::to_string(limits_.memory_bytes >> 20) + " MiB and was killed";
    if (!pids_dir_.empty() && keyed(pids_dir_ + "/pids.events", "max") > 0)
        why += std::string(why.empty() ? "" : "; ") + "it tried to run more than " + std::to_string(limits_.processes) +
               " processes and threads at once";
    return why;
}

}  // namespace lab::grading
