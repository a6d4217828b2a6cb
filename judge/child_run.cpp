// Kit tool (lab-case). See child_run.hpp.
#include "child_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lab/process.hpp"
#include "lab/text.hpp"

namespace case_runner {

namespace {

constexpr std::size_t kOutputHead = 768 * 1024, kOutputTail = 256 * 1024;

pid_t g_child = 0;

void stop_child(int signal_number)
{
    if (g_child > 0) kill(-g_child, SIGKILL);
    std::signal(signal_number, SIG_DFL);
    raise(signal_number);
}

std::size_t file_size(const std::string& path)
{
    struct stat info {};
    return stat(path.c_str(), &info) == 0 ? static_cast<std::size_t>(info.st_size) : 0;
}

// The results lines of `text` that are complete, parsed; `text` keeps what follows the last newline.
std::vector<nlohmann::json> complete_lines(std::string& text)
{
    std::vector<nlohmann::json> lines;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
        auto j = nlohmann::json::parse(text.substr(start, end - start), nullptr, false);
        if (!j.is_discarded() && j.is_object()) lines.push_back(std::move(j));  // a line cut short by a crash is not
    }
    text.erase(0, start);
    return lines;
}

Result result_of(const nlohmann::json& j)
{
    return {j.value("test", ""), j.value("result", ""), j.value("message", ""), j.value("sticky", false)};
}

}  // namespace

std::string temporary_directory()
{
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/lab-case-XXXXXX";
    if (!mkdtemp(pattern.data())) {
        std::perror("lab-case: mkdtemp");
        std::exit(2);
    }
    return pattern;
}

// Runs `argv` with the results file set, capturing what it prints (bounded). A test that makes no
// progress (no result appended) for `timeout` seconds is stopped, with the program; so is the
// program when `watch` says so.
ChildRun run_child(const std::vector<std::string>& argv, int timeout, const std::string& sanitizer_log,
                   const ResultWatch& watch)
{
    const std::string dir = temporary_directory();
    const std::string results = dir + "/results.jsonl";
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        std::perror("lab-case: pipe");
        std::exit(2);
    }
    lab::process::Options options;
    options.output_fd = pipe_fds[1];
    options.group = lab::process::Options::Group::process_group;
    options.die_with_parent = true;
    // One CUDA work queue unless the caller set another number (lab::process::cuda_work_queues):
    // ctest starts a program, and so a CUDA context, for every case.
    // LAB_CASE_SECONDS: the suites' own limit for one case (tests/support/suite.cpp) stays inside this one.
    options.environment = {{"LAB_RESULTS", results}, {"LAB_CASE_SECONDS", std::to_string(timeout)},
                           lab::process::cuda_work_queues()};
    const pid_t pid = lab::process::start(argv, options);
    if (pid < 0) {
        std::perror("lab-case: fork");
        std::exit(2);
    }
    g_child = pid;
    close(pipe_fds[1]);
    std::signal(SIGTERM, stop_child);
    std::signal(SIGINT, stop_child);

    ChildRun run;
    std::string head, tail;
    std::size_t dropped = 0;
    using clock = std::chrono::steady_clock;
    auto deadline = clock::now() + std::chrono::seconds(timeout);
    std::size_t progress = 0, watched = 0;  // bytes of the results file seen, and handed to the watch
    std::string unread;
    bool open = true, ended = false;
    int status = 0;
    while (!ended || open) {
        if (open) {
            pollfd p{pipe_fds[0], POLLIN, 0};
            if (poll(&p, 1, 100) > 0) {
                char buffer[65536];
                const ssize_t got = read(pipe_fds[0], buffer, sizeof buffer);
                if (got <= 0) open = false;
                const std::size_t room = kOutputHead - std::min(kOutputHead, head.size());
                const std::size_t to_head = std::min(room, static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
                head.append(buffer, to_head);
                if (got > 0) tail.append(buffer + to_head, static_cast<std::size_t>(got) - to_head);
                if (tail.size() > kOutputTail) {
                    dropped += tail.size() - kOutputTail;
                    tail.erase(0, tail.size() - kOutputTail);
                }
            }
        } else {
            usleep(20000);
        }
        // Still running with its output closed, or its output still held open by something it
        // started: either way the program itself is waited for.
        if (!ended && lab::process::ended(pid, status)) ended = true;
        if (ended && open) {
            pollfd p{pipe_fds[0], POLLIN, 0};
            if (poll(&p, 1, 0) <= 0) open = false;  // whatever it wrote has been read
        }
        if (const std::size_t now = file_size(results); now != progress) {
            progress = now;
            deadline = clock::now() + std::chrono::seconds(timeout);
            if (watch && !ended) {
                std::ifstream file(results, std::ios::binary);
                file.seekg(static_cast<std::streamoff>(watched));
                std::string added(now > watched ? now - watched : 0, '\0');
                file.read(added.data(), static_cast<std::streamsize>(added.size()));
                added.resize(static_cast<std::size_t>(file.gcount()));
                watched += added.size();
                unread += added;
                bool go_on = true;
                for (const auto& j : complete_lines(unread))
                    if (j.value("event", "") == "end") go_on = watch(result_of(j)) && go_on;
                if (!go_on) {
                    run.stopped = true;
                    kill(-pid, SIGKILL);
                    status = lab::process::wait(pid);
                    ended = true;
                    open = false;
                }
            }
        }
        if (!ended && clock::now() > deadline) {
            run.timed_out = true;
            kill(-pid, SIGKILL);
            status = lab::process::wait(pid);
            ended = true;
            open = false;
        }
    }
    close(pipe_fds[0]);
    kill(-pid, SIGKILL);  // anything it left behind
    g_child = 0;
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
    if (run.timed_out || run.stopped) run.signal = 0, run.exit_code = -1;
    run.not_started = run.exit_code == 127 && head.rfind("cannot start ", 0) == 0;
    run.output = head + (dropped ? "\n[... " + std::to_string(dropped) + " bytes of output left out ...]\n" : "") + tail;

    std::string all = lab::read_file(results);
    for (const auto& j : complete_lines(all)) {
        const std::string event = j.value("event", "");
        if (event == "start") run.started.push_back(j.value("test", ""));
        if (event == "end") run.results.push_back(result_of(j));
    }
    if (!sanitizer_log.empty()) run.sanitizer_log = lab::read_file(sanitizer_log);
    // The folder goes whole: a program stopped in the middle leaves its runner's files in it
    // (tests/support/suite.cpp), and so does the sanitizer's log its own folder.
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    if (!sanitizer_log.empty()) {
        std::remove(sanitizer_log.c_str());
        rmdir(std::filesystem::path(sanitizer_log).parent_path().c_str());
    }
    return run;
}

}  // namespace case_runner
