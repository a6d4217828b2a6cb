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

#include "lab/process.hpp"

namespace lab::judge {

std::unique_ptr<Confinement> confined(const std::vector<std::string>& command, const std::string& dir, const Limits& limits)
{
    if (!limits.confine) throw std::logic_error("the judge was given no confinement for its runners");
    std::unique_ptr<Confinement> made = limits.confine(command, dir, limits.runner);
    if (!made) throw std::logic_error("the runner's confinement could not be made");
    return made;
}

int open_runner_file(const std::string& path, std::size_t& size, struct stat* about)
{
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat own {};
    struct stat& seen = about ? *about : own;
    if (fstat(fd, &seen) != 0 || !S_ISREG(seen.st_mode)) {
        close(fd);
        return -1;
    }
    size = static_cast<std::size_t>(seen.st_size);
    return fd;
}

std::size_t read_at(int fd, char* into, std::size_t count, std::size_t from)
{
    std::size_t done = 0;
    while (done < count) {
        const ssize_t got = pread(fd, into + done, count - done, static_cast<off_t>(from + done));
        if (got <= 0) break;
        done += static_cast<std::size_t>(got);
    }
    return done;
}

Progress ProgressFile::look()
{
    std::size_t size = 0;
    struct stat about {};
    const int fd = open_runner_file(path_, size, &about);
    if (fd < 0) {
        *this = ProgressFile(path_);
        return seen_;
    }
    if (about.st_ino != inode_ || about.st_dev != device_ || size < offset_) {
        *this = ProgressFile(path_);
        inode_ = about.st_ino, device_ = about.st_dev;
    }
    std::size_t from = offset_;
    bool cut = false;
    if (size - from > kProgressTail) from = size - kProgressTail, cut = true;
    std::string text(size - from, '\0');
    text.resize(read_at(fd, text.data(), text.size(), from));
    close(fd);
    offset_ = from + text.size();
    if (cut) {
        const std::size_t line = text.find('\n');
        text.erase(0, line == std::string::npos ? text.size() : line + 1);
        partial_.clear();
    }
    partial_ += text;
    const std::size_t last = partial_.rfind('\n');
    if (last == std::string::npos) {
        if (partial_.size() > kProgressTail) partial_.clear();  // no line ends: nothing to read in it
        return seen_;
    }
    for (std::size_t at = 0; at <= last;) {
        const std::size_t end = partial_.find('\n', at);
        read_line(std::string_view(partial_).substr(at, end - at));
        at = end + 1;
    }
    partial_.erase(0, last + 1);
    return seen_;
}

void ProgressFile::read_line(std::string_view line)
{
    long* into = line.rfind("start ", 0) == 0 ? &seen_.last_started : line.rfind("end ", 0) == 0 ? &seen_.last_ended : nullptr;
    if (!into) return;
    const std::string number(line.substr(line.find(' ') + 1));
    char* parsed = nullptr;
    const long value = std::strtol(number.c_str(), &parsed, 10);
    if (parsed != number.c_str()) *into = value;
}

std::string read_bounded(const std::string& path, std::size_t limit) { return read_runner_file(path, limit).value_or(""); }

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
        if (WEXITSTATUS(status) == kStickyError) return "a CUDA error that leaves the GPU unusable for this process";
        if (WEXITSTATUS(status) == 127) return "the runner could not be started";
        return "the runner exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "the runner stopped";
}

}  // namespace lab::judge
