// What `./lab` shows while a long command works: one progress line per phase, rewritten in place on
// a terminal and written as plain lines when the output goes to a file or a pipe; children whose
// output is read line by line into a log and shown only when something fails; and Ctrl-C, which
// stops the child at work and ends the command with one line and exit status 130.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lab::cli {

// A command could not do its job: `./lab` prints "lab: WHAT" and exits with `code` (130 after Ctrl-C).
struct Failure : std::runtime_error {
    explicit Failure(const std::string& what, int code = 1) : std::runtime_error(what), code(code) {}
    int code;
};

// "42 s", "1m32s".
std::string duration_text(double seconds);

// One phase of a long command: a line that says how far it got, and at the end what it did and how
// long it took. On a terminal the line is rewritten in place; otherwise a line is written when the
// phase starts, at most every 15 s while it goes on, and when it ends.
class Phase {
public:
    explicit Phase(const std::string& text);
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;
    ~Phase();  // an unfinished phase (an error) ends its line, so that the message starts at the margin

    void update(const std::string& text);
    // The last line: "TEXT (1m32s)".
    void done(const std::string& text);
    double seconds() const;

private:
    void show(const std::string& text, bool final);
    std::chrono::steady_clock::time_point start_, last_plain_;
    std::string shown_;
    bool open_ = true;
};

// Runs argv with its stdout and stderr into `log` (truncated), calling `on_line` with each line as
// it comes. The child runs in a process group of its own; Ctrl-C (SIGINT or SIGTERM to this
// program) is passed on to that group, and the child is waited for. Returns its exit code (as
// lab::process::exit_code), or -1 when it could not be started.
int run_logged(const std::vector<std::string>& argv, const std::string& log,
               const std::function<void(const std::string&)>& on_line = {},
               const std::vector<std::pair<std::string, std::string>>& environment = {}, const std::string& directory = "");

// Installs the handlers behind the next two (main calls it once).
void watch_interrupts();
bool interrupted();
// Throws Failure(130) when Ctrl-C has been pressed: `what` says what was left as it was.
void stop_if_interrupted(const std::string& what);

}  // namespace lab::cli
