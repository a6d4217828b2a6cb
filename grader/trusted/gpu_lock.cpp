// TRUSTED SIDE. See gpu_lock.hpp.
#include "gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
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

}  // namespace

GpuLock::GpuLock(const std::string& path)
{
    if (path.empty()) return;
    const auto started = std::chrono::steady_clock::now();
    bool waited = false;
    // The queue first: while a grading waits for the GPU alone, it holds the queue, and no hold to
    // share it is taken before it has had it.
    const int queue = open_lock_file(path + ".queue");
    try {
        waited = take(queue, LOCK_EX, path + ".queue", false);
        fd_ = open_lock_file(path);
        waited |= take(fd_, LOCK_EX, path, waited);
    } catch (...) {
        ::close(queue);
        if (fd_ >= 0) ::close(fd_);
        throw;
    }
    ::close(queue);
    if (waited) waited_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

GpuLock::~GpuLock()
{
    if (fd_ >= 0) ::close(fd_);  // closing lets the lock go
}

GpuShare::Hold::Hold(Hold&& other) noexcept : share_(other.share_), fd_(other.fd_)
{
    other.fd_ = -1;
}

GpuShare::Hold::~Hold()
{
    if (fd_ >= 0) share_->let_go(fd_);
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
    try {
        waited = take(queue, LOCK_EX, path_ + ".queue", quiet);
        fd = open_lock_file(path_);
        waited |= take(fd, LOCK_SH, path_, quiet || waited);
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
        if (fd >= 0) ::close(fd);
        throw;
    }
    ::close(queue);
    return Hold(this, fd);
}

void GpuShare::let_go(int fd)
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
