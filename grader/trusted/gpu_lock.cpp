// TRUSTED SIDE. See gpu_lock.hpp.
#include "gpu_lock.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <vector>

#include "lab/cuda.hpp"
#include "lab/device.hpp"

namespace lab::grading {

std::string gpu_lock_path()
{
#if defined(LAB_BACKEND_CPU)
    return "";  // (the CPU backend's devices have no UUID, and no other grading to share with)
#else
    if (lab::device_status().emulated) return "";
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "";
    std::string uuid;
    char hex[3];
    for (unsigned char byte : prop.uuid.bytes) {
        std::snprintf(hex, sizeof hex, "%02x", byte);
        uuid += hex;
    }
    return (std::filesystem::temp_directory_path() / ("lab-grade-gpu-" + uuid + ".lock")).string();
#endif
}

namespace {

int open_lock_file(const std::string& path)
{
    // Never through a link; readable by all, so that another user's grading can lock it too.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) throw std::runtime_error("cannot open the GPU's lock " + path + ": " + std::strerror(errno));
    ::fchmod(fd, 0666);  // (whatever the umask made of it)
    return fd;
}

// flock(fd, how), waiting when it cannot be had at once, and saying so unless `quiet`; whether it
// waited.
bool take(int fd, int how, const std::string& path, bool quiet)
{
    if (::flock(fd, how | LOCK_NB) == 0) return false;
    if (errno != EWOULDBLOCK && errno != EINTR) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
    if (!quiet) std::cout << "  waiting for the GPU: another grading runs on it (" << path << ")\n" << std::flush;
    while (::flock(fd, how) != 0)
        if (errno != EINTR) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
    return true;
}

// The count of arrivals to share the GPU, kept in `path` (8 bytes), moved on by `add`.
std::uint64_t arrivals(const std::string& path, std::uint64_t add)
{
    const int fd = open_lock_file(path);
    take(fd, LOCK_EX, path, true);
    std::uint64_t count = 0;
    if (::pread(fd, &count, sizeof count, 0) != static_cast<ssize_t>(sizeof count)) count = 0;
    count += add;
    if (add && ::pwrite(fd, &count, sizeof count, 0) != static_cast<ssize_t>(sizeof count)) {
        ::close(fd);
        throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    }
    ::close(fd);
    return count;
}

// The folder of the holds held (the lock's path and ".holds"), open. Made as /tmp is, writable by
// all with the sticky bit: each user's gradings put their holds' files in it, and only a file's
// owner takes it away. -1 where it is not there and `make` is false.
int holds_folder(const std::string& path, bool make)
{
    const std::string dir = path + ".holds";
    if (make) ::mkdir(dir.c_str(), 01777);
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && (make || errno != ENOENT)) throw std::runtime_error("cannot open " + dir + ": " + std::strerror(errno));
    struct stat folder{};
    // (whatever the umask made of it, by its maker)
    if (fd >= 0 && ::fstat(fd, &folder) == 0 && folder.st_uid == ::geteuid() && (folder.st_mode & 07777) != 01777)
        ::fchmod(fd, 01777);
    return fd;
}

// The machine's steady clock (CLOCK_MONOTONIC: the same in every process), in nanoseconds.
std::int64_t steady_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A hold's file in the holds' folder, open and locked, and its name: made, locked, and only then
// given the time the hold began (a file without one is being made, or its maker died making it).
std::pair<int, std::string> hold_began(const std::string& path)
{
    static std::atomic<std::uint64_t> made{0};
    const std::int64_t now = steady_ns();
    const std::string name = std::to_string(::getpid()) + "-" + std::to_string(made++) + "-" + std::to_string(now);
    const int dir = holds_folder(path, true);
    const int fd = ::openat(dir, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    const int made_errno = errno;
    if (fd >= 0 && (::fchmod(fd, 0644) != 0 || ::flock(fd, LOCK_EX) != 0 || ::pwrite(fd, &now, sizeof now, 0) != static_cast<ssize_t>(sizeof now))) {
        const int error = errno;
        ::unlinkat(dir, name.c_str(), 0);
        ::close(fd);
        ::close(dir);
        throw std::runtime_error("cannot write " + path + ".holds/" + name + ": " + std::strerror(error));
    }
    ::close(dir);
    if (fd < 0) throw std::runtime_error("cannot make " + path + ".holds/" + name + ": " + std::strerror(made_errno));
    return {fd, name};
}

void hold_ended(const std::string& path, int fd, const std::string& name)
{
    try {
        const int dir = holds_folder(path, false);
        if (dir >= 0) {
            ::unlinkat(dir, name.c_str(), 0);
            ::close(dir);
        }
    } catch (const std::exception&) {
        // (the file stays, unlocked once closed below: the next look at the folder takes it away)
    }
    ::close(fd);
}

// The age in seconds of the oldest hold that began before `before` (steady_ns()), taking away the
// files of holders that have gone; 0 where there is none.
double oldest_hold_before(const std::string& path, std::int64_t before)
{
    if (path.empty()) return 0;
    const int dir = holds_folder(path, false);
    if (dir < 0) return 0;
    DIR* listing = ::fdopendir(dir);
    if (listing == nullptr) {
        ::close(dir);
        throw std::runtime_error("cannot list " + path + ".holds: " + std::strerror(errno));
    }
    const std::int64_t now = steady_ns();
    double oldest = 0;
    while (const dirent* entry = ::readdir(listing)) {
        if (entry->d_name[0] == '.') continue;
        const int fd = ::openat(dir, entry->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat file{};
        std::int64_t began = 0;
        if (::fstat(fd, &file) == 0 && S_ISREG(file.st_mode)) {
            const bool complete = ::pread(fd, &began, sizeof began, 0) == static_cast<ssize_t>(sizeof began);
            // Not locked: its holder has gone (however it ended) without taking it away; or, without
            // its time, is still making it, unless that was long ago (it died making it).
            if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
                if (complete || file.st_ctime < ::time(nullptr) - 60) ::unlinkat(dir, entry->d_name, 0);
            } else if (complete && began < before) {
                oldest = std::max(oldest, static_cast<double>(now - began) * 1e-9);
            }
        }
        ::close(fd);
    }
    ::closedir(listing);  // (closes dir)
    return oldest;
}

// The same for a waiter, which cannot fail: the holds' files only tell it when to let others in,
// never whether it has the GPU alone; where they cannot be read, it waits as though none were old.
double oldest_hold_seen(const std::string& path, std::int64_t before)
{
    try {
        return oldest_hold_before(path, before);
    } catch (const std::exception&) {
        return 0;
    }
}

}  // namespace

double oldest_hold(const std::string& path)
{
    return oldest_hold_before(path, std::numeric_limits<std::int64_t>::max());
}

GpuLock::GpuLock(const std::string& path, double patience)
{
    constexpr std::int64_t kAny = std::numeric_limits<std::int64_t>::max();
    if (path.empty()) return;
    const auto started = std::chrono::steady_clock::now();
    bool waited = false;
    // In line first: one grading at a time waits for the GPU alone, the others here, holding up no
    // grading's rungs.
    const int line = open_lock_file(path + ".alone");
    int queue = -1;
    try {
        waited = take(line, LOCK_EX, path + ".alone", false);
        queue = open_lock_file(path + ".queue");
        fd_ = open_lock_file(path);
        for (;;) {
            // The queue: while this grading holds it, no hold to share the GPU is taken, and those
            // held end.
            waited |= take(queue, LOCK_EX, path + ".queue", waited);
            bool have = false;
            for (int look = 1;; ++look) {
                if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
                    have = true;
                    break;
                }
                if (errno != EWOULDBLOCK && errno != EINTR) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
                if (!waited) std::cout << "  waiting for the GPU: another grading runs on it (" << path << ")\n" << std::flush;
                waited = true;
                if (look % 10 == 0 && oldest_hold_seen(path, kAny) > patience) break;  // (a look a second)
                ::usleep(100000);
            }
            if (have) break;
            // A hold has run for longer than the patience: the other gradings' rungs run beside it
            // rather than wait for it too, until none of the holds held now is that old (holds that
            // begin meanwhile do not count: the ones that count only end, so the wait does); then
            // the queue again. Whenever no hold is held meanwhile, the GPU is this grading's at once
            // (whatever the holds' files say: a file is a hint, the lock is the fact).
            const std::int64_t let_go_at = steady_ns();
            ::flock(queue, LOCK_UN);
            if (let_others_in_++ == 0)
                std::cout << "  the GPU is held by a rung that has run for more than " << patience
                          << " s (a kernel that never ends?): the other gradings' rungs run meanwhile\n" << std::flush;
            while (!(have = ::flock(fd_, LOCK_EX | LOCK_NB) == 0) && oldest_hold_seen(path, let_go_at) > patience) ::usleep(250000);
            if (have) break;
            patience *= 2;
        }
    } catch (...) {
        ::close(line);
        if (queue >= 0) ::close(queue);
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        throw;
    }
    ::close(queue);
    ::close(line);
    if (waited) waited_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

GpuLock::~GpuLock()
{
    if (fd_ >= 0) ::close(fd_);  // closing lets the lock go
}

GpuShare::Hold::Hold(Hold&& other) noexcept
    : share_(other.share_), fd_(other.fd_), since_(other.since_), since_name_(std::move(other.since_name_))
{
    other.fd_ = other.since_ = -1;
}

GpuShare::Hold::~Hold()
{
    if (fd_ >= 0) share_->let_go(fd_, since_, since_name_);
}

GpuShare::Hold GpuShare::hold()
{
    if (path_.empty()) return {};
    bool quiet;  // (a grading says once that it waits)
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (alone_) return {};
        quiet = said_;
    }
    const auto started = std::chrono::steady_clock::now();
    bool waited = false;
    // The queue, taken in turn by every request (this grading's other threads' too): nobody takes the
    // lock or waits for it while this one holds it, so what is seen below holds still.
    const int queue = open_lock_file(path_ + ".queue");
    int fd = -1;
    std::pair<int, std::string> since{-1, ""};
    try {
        waited = take(queue, LOCK_EX, path_ + ".queue", quiet);
        fd = open_lock_file(path_);
        waited |= take(fd, LOCK_SH, path_, quiet || waited);
        try {
            since = hold_began(path_);  // (its age, for a grading that waits for the GPU alone)
        } catch (const std::exception& e) {
            // Only a waiter's patience needs it: the hold stands without (a waiter then waits for
            // it, however long it runs).
            static std::once_flag said;
            std::call_once(said, [&] { std::cout << "  (the GPU's hold is not on record: " << e.what() << ")\n" << std::flush; });
        }
        const std::lock_guard<std::mutex> lock(mutex_);
        if (held_ == 0) {
            // None of this grading's held: whether another grading holds a share now, by trying for
            // the lock alone (a failed try lets go of the shared hold too: flock(2) converts by
            // letting go first), then shared again, at once, since those that hold it hold it shared.
            if (::flock(fd, LOCK_EX | LOCK_NB) != 0) shared_ = true;
            if (::flock(fd, LOCK_SH) != 0) throw std::runtime_error("cannot lock " + path_ + ": " + std::strerror(errno));
            arrivals_ = arrivals(path_ + ".arrivals", 1);
        } else {
            // Some held: another grading took a hold since this one's last, when the count moved
            // by more than this hold.
            const std::uint64_t now = arrivals(path_ + ".arrivals", 1);
            if (now != arrivals_ + 1) shared_ = true;
            arrivals_ = now;
        }
        ++held_;
        if (waited) {
            said_ = true;
            waited_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        }
    } catch (...) {
        ::close(queue);
        if (since.first >= 0) hold_ended(path_, since.first, since.second);
        if (fd >= 0) ::close(fd);
        throw;
    }
    ::close(queue);
    return Hold(this, fd, since.first, std::move(since.second));
}

void GpuShare::let_go(int fd, int since, const std::string& since_name)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    // The last of this grading's: another took a hold meanwhile when the count moved. (The file is
    // closed under the mutex: a hold this grading takes next finds none of its own still there.)
    if (--held_ == 0) {
        try {
            if (arrivals(path_ + ".arrivals", 0) != arrivals_) shared_ = true;
        } catch (const std::exception&) {
            shared_ = true;  // (it cannot tell: as if shared, which runs again only what sharing could change)
        }
    }
    if (since >= 0) hold_ended(path_, since, since_name);  // (before the hold: a look at the ages sees none older than it)
    ::close(fd);  // closing lets the hold go
}

void GpuShare::set_alone(bool alone)
{
    const std::lock_guard<std::mutex> lock(mutex_);
    alone_ = alone;
}

bool GpuShare::shared_with_another() const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    if (shared_ || held_ == 0) return shared_;
    return arrivals(path_ + ".arrivals", 0) != arrivals_;
}

double GpuShare::waited() const
{
    const std::lock_guard<std::mutex> lock(mutex_);
    return waited_;
}

bool run_again_alone(const std::vector<CaseResult>& cases, const SanitizerResult& tools)
{
    if (tools.memory_refused) return true;
    bool failed = false;
    for (const CaseResult& c : cases) {
        if (c.status != "failed" || c.at_limit) continue;
        if (c.memory_refused) return true;
        failed = true;
    }
    return failed && tools.timing_hazard;
}

}  // namespace lab::grading
