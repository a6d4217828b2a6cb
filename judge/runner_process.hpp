// TRUSTED SIDE. Internal to the judge: a runner started in the confinement its caller gives
// (checker.cpp's cases, speed_checker.cpp's speed case), stopped, and how it ended in words.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker.hpp"

namespace lab::judge {

using Clock = std::chrono::steady_clock;

// `command` confined as `limits` say, writing only in `dir`: never unconfined.
std::unique_ptr<Confinement> confined(const std::vector<std::string>& command, const std::string& dir, const Limits& limits);

// A file a runner wrote in its folder, opened here, outside its sandbox: so only a regular file,
// never a link (which could point at what the sandbox hides from the runner: the hidden cases, the
// solutions) or a pipe. Its descriptor and its size in `size` (and all fstat says in `about`, when
// given); -1 when there is no such file.
int open_runner_file(const std::string& path, std::size_t& size, struct stat* about = nullptr);
// Up to `count` bytes from offset `from` into `into`; how many were read.
std::size_t read_at(int fd, char* into, std::size_t count, std::size_t from);

// How much of a progress file's end a look reads at the most.
constexpr std::size_t kProgressTail = 64 * 1024;

// The jobs the progress file says started and ended.
struct Progress {
    long last_started = -1, last_ended = -1;
};

// A runner's progress file, read as it grows: each look reads only what was appended since the
// last one. The judge looks every millisecond or two while a runner runs, and the file holds two
// lines a case; reading and parsing all of it at every look (its last 64 KiB) cost lab-grade about
// a core while four rungs and their sanitizer passes ran side by side. Only the last jobs matter, so
// a file that grew by more than kProgressTail since the last look is read from that far before its
// end (from its first whole line there); one that is gone, shrank or was replaced (another inode)
// is read afresh. A line other than "start N" or "end N" says nothing.
class ProgressFile {
public:
    explicit ProgressFile(std::string path) : path_(std::move(path)) {}
    Progress look();

private:
    void read_line(std::string_view line);

    std::string path_;
    std::size_t offset_ = 0;
    ino_t inode_ = 0;
    dev_t device_ = 0;
    std::string partial_;  // the end of the file past its last whole line
    Progress seen_;
};

// read_runner_file's text, or "" when there is no such file.
std::string read_bounded(const std::string& path, std::size_t limit);

struct Child {
    pid_t pid = -1;
    Clock::time_point started;
    std::unique_ptr<Confinement> sandbox;  // its confinement (limits, cgroup), as long as it runs
};

// `runner REQUEST DIR FIRST`, confined (the grader's sandbox), where only `dir` is writable; its
// output goes to dir/runner.log. pid < 0 when it could not be started.
Child start_runner(const std::string& runner, const std::string& request, const std::string& dir, const std::string& first,
                   const Limits& limits);
// Stops it, and every process it started.
void kill_runner(Child& child);
// How it ended (waitpid's `status`), in words: a limit its sandbox reached, a signal, an exit code.
std::string describe_exit(int status, const Child& child);
// Whether it was killed for its CPU time (RLIMIT_CPU's SIGXCPU, itself or as its sandbox reports it):
// a limit, like the time limit (the CPU backend's endless kernel spins every core it has).
bool killed_for_cpu_time(int status);

}  // namespace lab::judge
