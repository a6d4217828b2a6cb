// See console.hpp.
#include "console.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "lab/process.hpp"

namespace lab::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void on_interrupt(int) { g_interrupted = 1; }

bool terminal() { return isatty(STDOUT_FILENO) == 1; }

constexpr double kPlainEverySeconds = 15;

}  // namespace

std::string duration_text(double seconds)
{
    const long whole = std::lround(seconds);
    if (whole < 60) return std::to_string(whole) + " s";
    const long m = whole / 60, s = whole % 60;
    return std::to_string(m) + "m" + (s < 10 ? "0" : "") + std::to_string(s) + "s";
}

Phase::Phase(const std::string& text) : start_(std::chrono::steady_clock::now()), last_plain_(start_)
{
    show(text, false);
    if (!terminal()) std::cout << text << std::endl;
}

Phase::~Phase()
{
    if (open_ && terminal() && !shown_.empty()) std::cout << std::endl;
}

double Phase::seconds() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Phase::update(const std::string& text)
{
    if (text == shown_) return;
    show(text, false);
    if (!terminal()) {
        const auto now = std::chrono::steady_clock::now();
        if (std::chrono::duration<double>(now - last_plain_).count() >= kPlainEverySeconds) {
            std::cout << text << std::endl;
            last_plain_ = now;
        }
    }
}

void Phase::done(const std::string& text)
{
    show(text + " (" + duration_text(seconds()) + ")", true);
    open_ = false;
}

void Phase::show(const std::string& text, bool final)
{
    shown_ = text;
    if (terminal()) {
        std::cout << "\r\033[K" << text;
        if (final) std::cout << '\n';
        std::cout.flush();
    } else if (final) {
        std::cout << text << std::endl;
    }
}

int run_logged(const std::vector<std::string>& argv, const std::string& log,
               const std::function<void(const std::string&)>& on_line,
               const std::vector<std::pair<std::string, std::string>>& environment, const std::string& directory)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw Failure("cannot make a pipe: " + std::string(std::strerror(errno)));
    const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        close(fds[0]), close(fds[1]);
        throw Failure("cannot write " + log + ": " + std::strerror(errno));
    }
    std::cout.flush();
    process::Options options;
    options.output_fd = fds[1];
    options.group = process::Options::Group::process_group;
    options.search_path = true;
    options.null_stdin = true;
    options.environment = environment;
    options.directory = directory;
    const pid_t pid = process::start(argv, options);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]), close(log_fd);
        return -1;
    }
    std::string pending;
    bool passed_on = false, exited = false;
    int status = 0;
    auto passed_at = std::chrono::steady_clock::now();
    char buffer[65536];
    for (;;) {
        if (g_interrupted && !passed_on) {
            kill(-pid, SIGINT);
            passed_on = true;
            passed_at = std::chrono::steady_clock::now();
        }
        // Ctrl-C: what ignores it (a shell's background job) is stopped 5 s later.
        if (passed_on && std::chrono::steady_clock::now() - passed_at > std::chrono::seconds(5)) kill(-pid, SIGKILL);
        pollfd p{fds[0], POLLIN, 0};
        const int ready = poll(&p, 1, 200);
        if (ready < 0 && errno != EINTR) break;
        if (ready <= 0) {
            // Nothing to read, and the child has ended: done, even if something it started still
            // holds the pipe open.
            if (!exited && process::ended(pid, status)) exited = true;
            if (exited) break;
            continue;
        }
        const ssize_t got = read(fds[0], buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        [[maybe_unused]] const ssize_t kept = write(log_fd, buffer, static_cast<std::size_t>(got));  // a short log only loses detail
        pending.append(buffer, static_cast<std::size_t>(got));
        std::size_t start = 0;
        for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
            if (on_line) on_line(pending.substr(start, end - start));
        pending.erase(0, start);
    }
    if (!pending.empty() && on_line) on_line(pending);
    close(fds[0]);
    close(log_fd);
    if (passed_on) kill(-pid, SIGKILL);  // whatever of it is left after Ctrl-C
    return process::exit_code(exited ? status : process::wait(pid));
}

void watch_interrupts()
{
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

bool interrupted() { return g_interrupted != 0; }

void stop_if_interrupted(const std::string& what)
{
    if (g_interrupted) throw Failure("interrupted; " + what, 130);
}

}  // namespace lab::cli
