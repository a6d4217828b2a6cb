// TRUSTED SIDE. The files a runner wrote in its folder, read from outside its sandbox (the checker's
// cases, the speed checker's, the grader's sanitizer and lessons parts): a regular file only, never
// through a link (which could point at what the sandbox hides from the runner: the hidden cases, the
// solutions) or a pipe, and never more of it than the reader asks for.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace lab::judge {

// At most `limit` bytes of the file (its last ones when `tail`); nothing when there is no such file.
std::optional<std::string> read_runner_file(const std::string& path, std::size_t limit, bool tail = false);
// The same file read whole into `into` (`bytes` of it, the same memory every time: a row kernel's
// 64 MB outputs); false unless it holds exactly `bytes` and all of them were read.
bool read_runner_file_exactly(const std::string& path, void* into, std::size_t bytes);

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

}  // namespace lab::judge
