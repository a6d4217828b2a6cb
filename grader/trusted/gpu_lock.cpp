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

// flock(fd, how), waiting (and saying so once, through `said`) when it cannot be had at once.
void take(int fd, int how, const std::string& path, bool& said)
{
    if (::flock(fd, how | LOCK_NB) == 0) return;
    if (errno != EWOULDBLOCK && errno != EINTR) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
    if (!said) std::cout << "  waiting for the GPU: another grading runs on it (" << path << ")\n" << std::flush;
    said = true;
    while (::flock(fd, how) != 0)
        if (errno != EINTR) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
}

// The count of arrivals to share the GPU, kept in `path` (8 bytes), moved on by `add`.
std::uint64_t arrivals(const std::string& path, std::uint64_t add)
{
    const int fd = open_lock_file(path);
    bool said = true;
    take(fd, LOCK_EX, path, said);
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

GpuLock::GpuLock(const std::string& path, Use use) : path_(path)
{
    if (path_.empty()) return;
    const auto started = std::chrono::steady_clock::now();
    bool said = false;
    // The queue first: while a grading waits for the GPU alone, it holds the queue, and nobody
    // after it gets to share the GPU before it has had it.
    const int queue = open_lock_file(path_ + ".queue");
    try {
        take(queue, LOCK_EX, path_ + ".queue", said);
        fd_ = open_lock_file(path_);
        take(fd_, use == Use::alone ? LOCK_EX : LOCK_SH, path_, said);
        if (use == Use::shared) {
            // Whether another grading shares it now: trying for it alone (a failed try lets go of
            // the shared hold too: flock(2) converts by letting go first), then shared again. Nobody
            // can take the lock or wait for it while this one holds the queue, and those that share
            // it hold it shared: the shared hold is had again at once.
            alone_at_first_ = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
            if (::flock(fd_, LOCK_SH) != 0)
                throw std::runtime_error("cannot lock " + path_ + ": " + std::strerror(errno));
            arrivals_ = arrivals(path_ + ".arrivals", 1);
        }
    } catch (...) {
        ::close(queue);
        if (fd_ >= 0) ::close(fd_);
        throw;
    }
    ::close(queue);
    if (said) waited_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

bool GpuLock::shared_with_another() const
{
    if (fd_ < 0 || arrivals_ == 0) return false;
    return !alone_at_first_ || arrivals(path_ + ".arrivals", 0) != arrivals_;
}

GpuLock::~GpuLock()
{
    if (fd_ >= 0) ::close(fd_);  // closing lets the lock go
}

}  // namespace lab::grading
