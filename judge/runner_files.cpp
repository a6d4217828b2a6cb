// TRUSTED SIDE. See runner_files.hpp.
#include "runner_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace lab::judge {

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

// At most `limit` bytes, from the file's end when `tail`; nothing when there is no such file.
std::optional<std::string> read_runner_file(const std::string& path, std::size_t limit, bool tail)
{
    std::size_t size = 0;
    const int fd = open_runner_file(path, size);
    if (fd < 0) return std::nullopt;
    const std::size_t from = tail && size > limit ? size - limit : 0;
    std::string text(std::min(limit, size - from), '\0');
    text.resize(read_at(fd, text.data(), text.size(), from));
    close(fd);
    return text;
}

bool read_runner_file_exactly(const std::string& path, void* into, std::size_t bytes)
{
    std::size_t size = 0;
    const int fd = open_runner_file(path, size);
    if (fd < 0) return false;
    const bool whole = size == bytes && read_at(fd, static_cast<char*>(into), bytes, 0) == bytes;
    close(fd);
    return whole;
}

}  // namespace lab::judge
