// TRUSTED SIDE. See runner_process.hpp.
#include "runner_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "lab/exit_status.hpp"
#include "lab/process.hpp"

namespace lab::judge {

std::unique_ptr<Confinement> confined(const std::vector<std::string>& command, const std::string& dir, const Limits& limits)
{
    if (!limits.confine) throw std::logic_error("the judge was given no confinement for its runners");
    std::unique_ptr<Confinement> made = limits.confine(command, dir, limits.runner);
    if (!made) throw std::logic_error("the runner's confinement could not be made");
    return made;
}

Child start_runner(const std::string& runner, const std::string& request, const std::string& dir, const std::string& first,
                   const Limits& limits)
{
    // Confined (the grader's sandbox), where only its own folder is writable.
    Child child;
    child.sandbox = confined({runner, request, dir, first}, dir, limits);
    child.started = Clock::now();
    child.pid = lab::process::start(child.sandbox->argv(), child.sandbox->options(dir + "/runner.log", true));
    return child;
}

void kill_runner(Child& child)
{
    lab::process::kill_group(child.pid);
    child.pid = -1;
}

// The signal that killed it (itself, or as its sandbox reports it: exit code 128 + the signal); 0 for none.
static int killing_signal(int status)
{
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    if (WIFSIGNALED(status)) return WTERMSIG(status);
    return code > 128 && code < 128 + NSIG ? code - 128 : 0;
}

bool killed_for_cpu_time(int status) { return killing_signal(status) == SIGXCPU; }

std::string describe_exit(int status, const Child& child)
{
    const std::string limit = child.sandbox ? child.sandbox->limit_reached() : "";
    if (!limit.empty()) return "the runner was stopped: " + limit;
    if (const int sig = killing_signal(status); sig != 0) {
        return std::string("the runner was killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")" +
               (sig == SIGXFSZ   ? ": it wrote more than the grader allows"
                : sig == SIGXCPU ? ": it used more CPU time than the rubric allows"
                                 : "");
    }
    if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) == lab::exit_status::kStickyError) return "a CUDA error that leaves the GPU unusable for this process";
        if (WEXITSTATUS(status) == 127) return "the runner could not be started";
        return "the runner exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "the runner stopped";
}

}  // namespace lab::judge
