// The GPU's lock (gpu_lock.hpp): when a grading runs a rung again with the GPU alone or waits for
// it to time a kernel, and how gradings share the GPU, wait for it alone and let go of it, however
// they end. (policy_test.cpp: the grader's policy on what its runs handed back.)
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fresh_folder.hpp"
#include "gpu_lock.hpp"
#include "judge.hpp"
#include "lab/process.hpp"
#include "lab/text.hpp"
#include "categories.hpp"
#include "plan.hpp"
#include "rubric.hpp"
#include "sanitizer.hpp"

namespace {

using namespace lab::grading;

TEST(GpuLock, ARungRunsAgainAloneOnlyWhereSharingCouldHaveChangedItsVerdicts)
{
    CaseResult passed, wrong, refused, stopped;
    passed.status = "passed";
    wrong.status = refused.status = stopped.status = "failed";
    refused.memory_refused = true;
    stopped.at_limit = true;
    SanitizerResult clean, race, short_of_memory, other;
    race.findings = other.findings = short_of_memory.findings = {"a finding"};
    race.timing_hazard = true;
    short_of_memory.memory_refused = true;
    EXPECT_FALSE(run_again_alone({passed, passed}, clean));
    EXPECT_FALSE(run_again_alone({passed, wrong}, clean)) << "a wrong answer or a fault is the kernel's own";
    EXPECT_FALSE(run_again_alone({passed, wrong}, other)) << "so is a finding other than a race";
    EXPECT_FALSE(run_again_alone({passed, passed}, race)) << "a race, but no verdict it could have changed";
    EXPECT_FALSE(run_again_alone({passed, stopped}, race)) << "a case stopped at its limit runs again for nothing";
    EXPECT_TRUE(run_again_alone({passed, refused}, clean)) << "a case that ran short of the GPU's memory";
    EXPECT_TRUE(run_again_alone({wrong, passed}, race)) << "a failure beside a race";
    EXPECT_TRUE(run_again_alone({passed}, short_of_memory)) << "a tool that ran short of the GPU's memory";
    refused.status = "passed";
    EXPECT_FALSE(run_again_alone({refused, passed}, clean)) << "passed all the same";
}

// A grading takes the GPU alone only for something to run again or a kernel to time: a rung with
// speed points, built and graded here, whose every visible case passed. (One whose rungs all failed
// waited a minute behind a kernel holding the GPU to its case limit, to time nothing: an H200,
// 2026-11-28, Kit.Grader.GradeAllBesideAMemoryHog.)
TEST(GpuLock, AGradingWithNothingToTimeDoesNotWaitForTheGpuAlone)
{
    const Rubric rubric = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    CaseResult passed, failed, hidden_failed;
    passed.status = "passed";
    failed.status = hidden_failed.status = "failed";
    hidden_failed.hidden = true;
    RungResult r;
    r.id = "03_sequential";
    r.submitted = r.built = true;
    r.cases = {passed, passed};
    Grade g;
    g.rungs = {r};
    ASSERT_GT(rubric.for_rung(r.id).speed, 0) << "the kit's rubric gives rung 03 speed points";
    EXPECT_TRUE(speed_to_time(g, rubric)) << "every visible case passed: its speed is timed";
    g.rungs[0].cases.push_back(hidden_failed);
    EXPECT_TRUE(speed_to_time(g, rubric)) << "a hidden case's failure does not stop the speed";
    g.rungs[0].cases.push_back(failed);
    EXPECT_FALSE(speed_to_time(g, rubric)) << "a visible case failed: nothing to time";
    RungResult other = r;
    other.id = "07_coarsening";
    g.rungs.push_back(other);
    EXPECT_TRUE(speed_to_time(g, rubric)) << "another rung passed every visible case";
    g.rungs[1].built = false;
    EXPECT_FALSE(speed_to_time(g, rubric)) << "a rung that did not build has nothing to time";
    g.rungs[1].built = true;
    g.rungs[1].reused = true;
    EXPECT_FALSE(speed_to_time(g, rubric)) << "a rung reused from an earlier grading is not timed again";
    g.rungs[1].reused = false;
    Rubric no_speed = rubric;
    no_speed.rungs[other.id].speed = 0;
    EXPECT_FALSE(speed_to_time(g, no_speed)) << "a rubric without speed points for the rung";
    EXPECT_FALSE(speed_to_time(Grade{}, rubric)) << "nothing submitted";
}

}  // namespace

// Two gradings on one GPU (grade-all's workers, or two lab-grade started by hand): the second to
// ask for the GPU alone waits for the first, and gets it as soon as the first lets go, however it ends. A
// child process holds the lock here, as another grading would.
TEST(GpuLock, ASecondGradingWaitsUntilTheFirstLetsGoEvenWhenKilled)
{
    const std::string path = (std::filesystem::temp_directory_path() / ("lab-gpu-lock-test-" + std::to_string(getpid()))).string();
    const std::string held = path + ".held";
    std::filesystem::remove(path);
    std::filesystem::remove(held);
    for (const bool killed : {false, true}) {
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            const lab::grading::GpuLock lock(path);
            { std::ofstream(held) << "held"; }
            usleep(killed ? 10000000 : 400000);  // killed long before its 10 s
            _exit(0);
        }
        while (!std::filesystem::exists(held)) usleep(1000);
        // Killed while this process waits for its lock.
        std::thread killer([&] {
            if (!killed) return;
            usleep(300000);
            kill(child, SIGKILL);
        });
        const auto started = std::chrono::steady_clock::now();
        {
            const lab::grading::GpuLock lock(path);
            const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            EXPECT_GT(lock.waited(), 0.1) << (killed ? "killed" : "ended");
            EXPECT_LT(waited, 5.0) << "the lock was not let go when its holder " << (killed ? "was killed" : "ended");
        }
        killer.join();
        lab::process::wait(child);
        std::filesystem::remove(held);
    }
    // Held by nobody: taken at once. "" (the CPU backend) holds nothing.
    EXPECT_EQ(lab::grading::GpuLock(path).waited(), 0.0);
    EXPECT_EQ(lab::grading::GpuLock("").waited(), 0.0);
    for (const char* beside : {"", ".queue", ".alone"}) std::filesystem::remove(path + beside);
}

namespace {

double now_seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

enum class Use { shared, alone };

// A child process that holds the lock at `path` for `use` (a share's one hold, or alone) during
// `seconds` once it has it, as another grading would, writing when it got it into `marker` (the
// steady clock is the machine's). With `go`, it asks once that file exists: forked before the test
// takes its own holds, whose files a child forked later would hold too (a runner, started with exec,
// does not: the lock files close on exec).
pid_t hold_in_child(const std::string& path, Use use, double seconds, const std::string& marker, const std::string& go = "",
                    double patience = lab::grading::kHoldPatience)
{
    const pid_t child = fork();
    if (child != 0) return child;
    while (!go.empty() && !std::filesystem::exists(go)) usleep(1000);
    {
        lab::grading::GpuShare share(path);
        std::optional<lab::grading::GpuShare::Hold> shared;
        std::optional<lab::grading::GpuLock> alone;
        if (use == Use::shared) shared.emplace(share.hold());
        else alone.emplace(path, patience);
        { std::ofstream(marker + ".part") << std::to_string(now_seconds()); }
        std::filesystem::rename(marker + ".part", marker);
        usleep(static_cast<useconds_t>(seconds * 1e6));
    }
    _exit(0);
}

// When the child of `marker` got the lock; 1e9 (never) when it has not in 5 s.
double wait_for_marker(const std::string& marker)
{
    for (const double until = now_seconds() + 5; !std::filesystem::exists(marker); usleep(1000))
        if (now_seconds() > until) return 1e9;
    return std::stod(lab::read_file(marker));
}

// `count` child processes, each a grading taking holds of `seconds` one after another without a gap
// for `during` seconds, the k-th starting `apart` x k seconds after the first.
std::vector<pid_t> gradings_holding(const std::string& path, int count, double seconds, double apart, double during)
{
    std::vector<pid_t> children;
    for (int k = 0; k < count; ++k) {
        const pid_t child = fork();
        if (child < 0) throw std::runtime_error("fork failed");
        if (child == 0) {
            usleep(static_cast<useconds_t>(k * apart * 1e6));
            lab::grading::GpuShare share(path);
            for (const double until = now_seconds() + during; now_seconds() < until;) {
                const lab::grading::GpuShare::Hold hold = share.hold();
                usleep(static_cast<useconds_t>(seconds * 1e6));
            }
            _exit(0);
        }
        children.push_back(child);
    }
    return children;
}

}  // namespace

// Gradings share the GPU for their cases and tools, each knowing whether another shared it; one that
// asks for it alone waits for those that share it, and one that asks to share it after that waits
// behind (gpu_lock.hpp).
TEST(GpuLock, GradingsShareItForCasesAndHaveItAloneForSpeedInTurn)
{
    const std::string dir = fresh_folder("lab-gpu-share-test-");
    const std::string path = dir + "/lock";
    // Alone on it, until another comes to share it.
    {
        lab::grading::GpuShare share(path);
        const lab::grading::GpuShare::Hold hold = share.hold();
        EXPECT_FALSE(share.shared_with_another());
        const pid_t other = hold_in_child(path, Use::shared, 0.1, dir + "/came");
        wait_for_marker(dir + "/came");
        EXPECT_TRUE(share.shared_with_another()) << "another grading came to share the GPU";
        lab::process::wait(other);
        EXPECT_TRUE(share.shared_with_another()) << "(and has gone since)";
    }
    // Another shares it already: taken at once, and known to be shared.
    {
        const pid_t other = hold_in_child(path, Use::shared, 0.5, dir + "/there");
        wait_for_marker(dir + "/there");
        lab::grading::GpuShare share(path);
        const lab::grading::GpuShare::Hold hold = share.hold();
        EXPECT_EQ(share.waited(), 0.0) << "the GPU was not shared";
        EXPECT_TRUE(share.shared_with_another());
        lab::process::wait(other);
    }
    // Alone: waits for the one that shares it; and one that asks to share it meanwhile comes after.
    {
        const pid_t sharing = hold_in_child(path, Use::shared, 0.6, dir + "/sharing");
        const double shared_at = wait_for_marker(dir + "/sharing");
        const pid_t alone = hold_in_child(path, Use::alone, 0.3, dir + "/alone");
        usleep(200000);
        EXPECT_FALSE(std::filesystem::exists(dir + "/alone")) << "had the GPU alone while another shared it";
        lab::grading::GpuShare share(path);
        const lab::grading::GpuShare::Hold late = share.hold();
        const double late_at = now_seconds(), alone_at = wait_for_marker(dir + "/alone");
        EXPECT_GT(alone_at, shared_at + 0.5) << "had the GPU alone before the one sharing it let go";
        EXPECT_LT(alone_at, shared_at + 5) << "never had the GPU alone";
        EXPECT_GT(late_at, alone_at + 0.25) << "came to share the GPU while another had it alone, or before it had it";
        EXPECT_GT(share.waited(), 0.5);
        lab::process::wait(sharing);
        lab::process::wait(alone);
    }
    std::filesystem::remove_all(dir);
}

// A grading holds the GPU a rung at a time, several rungs side by side: one that asks for it alone
// gets it once the rungs running then end, not once the grading's last rung ends, and the rungs
// asked for meanwhile wait behind it. Its own rungs side by side are not another grading sharing
// the GPU; another's hold taken while one of its own was held is.
TEST(GpuLock, AGradingHoldsItARungAtATime)
{
    const std::string dir = fresh_folder("lab-gpu-rung-test-");
    const std::string path = dir + "/lock";
    lab::grading::GpuShare share(path);
    {
        // Two rungs side by side, a third after the first: no other grading.
        std::optional<lab::grading::GpuShare::Hold> first(share.hold());
        const lab::grading::GpuShare::Hold second = share.hold();
        first.reset();
        const lab::grading::GpuShare::Hold third = share.hold();
        EXPECT_FALSE(share.shared_with_another()) << "its own rungs counted as another grading";
    }
    EXPECT_FALSE(share.shared_with_another());
    EXPECT_EQ(share.waited(), 0.0);
    // A rung runs for 0.4 s; another grading asks for the GPU alone 0.1 s into it.
    const pid_t alone = hold_in_child(path, Use::alone, 0.3, dir + "/alone", dir + "/go-alone");
    const double started = now_seconds();
    std::optional<lab::grading::GpuShare::Hold> running(share.hold());
    { std::ofstream(dir + "/go-alone") << "go"; }
    usleep(100000);
    std::thread rung_ends([&] {
        usleep(300000);
        running.reset();
    });
    // The grading's next rung, asked for while the other waits: it comes after the other's speed.
    {
        const lab::grading::GpuShare::Hold next = share.hold();
        const double next_at = now_seconds(), alone_at = wait_for_marker(dir + "/alone");
        EXPECT_GT(alone_at, started + 0.35) << "had the GPU alone while a rung ran on it";
        EXPECT_LT(alone_at, started + 2.0) << "waited for more than the rung that ran";
        EXPECT_GT(next_at, alone_at + 0.25) << "a rung took the GPU while another grading had it alone";
        EXPECT_GT(share.waited(), 0.3);
    }
    rung_ends.join();
    lab::process::wait(alone);
    EXPECT_FALSE(share.shared_with_another()) << "the other had the GPU alone; nobody shared it";
    // A hold taken at once after one that waited adds nothing to the wait.
    const double waited = share.waited();
    { const lab::grading::GpuShare::Hold at_once = share.hold(); }
    EXPECT_EQ(share.waited(), waited) << "a hold that did not wait was counted as waiting";
    // Another grading takes a hold while a rung of this one's is held, beside a second rung.
    {
        const pid_t other = hold_in_child(path, Use::shared, 0.05, dir + "/other", dir + "/go-other");
        const lab::grading::GpuShare::Hold one = share.hold();
        { std::ofstream(dir + "/go-other") << "go"; }
        wait_for_marker(dir + "/other");
        lab::process::wait(other);
        const lab::grading::GpuShare::Hold two = share.hold();
        EXPECT_TRUE(share.shared_with_another()) << "another grading's hold went unseen";
    }
    EXPECT_TRUE(share.shared_with_another());
    std::filesystem::remove_all(dir);
}

// A grading that waits for the GPU alone holds up the others' rungs (the queue), but not behind a hold
// older than its patience: on an H200, a class of 16 waited 5260 s of its rungs' time behind
// gradings that waited for kernels held to their case limit. Once none is that old it holds them up
// again, and has the GPU when the old one ends. A holder that dies leaves no hold behind.
TEST(GpuLock, AWaiterForTheGpuAloneLetsTheOthersInBesideAHoldPastItsPatience)
{
    const std::string dir = fresh_folder("lab-gpu-patience-test-");
    const std::string path = dir + "/lock";
    EXPECT_EQ(oldest_hold(path), 0.0) << "no hold yet";
    const pid_t endless = hold_in_child(path, Use::shared, 2.5, dir + "/endless");
    const double endless_at = wait_for_marker(dir + "/endless");
    const pid_t alone = hold_in_child(path, Use::alone, 0.1, dir + "/alone", "", 0.3);
    usleep(200000);  // (it holds the queue and waits)
    EXPECT_GT(oldest_hold(path), 0.15);
    {
        lab::grading::GpuShare share(path);
        const lab::grading::GpuShare::Hold rung = share.hold();
        const double rung_at = now_seconds();
        EXPECT_LT(rung_at, endless_at + 2.0) << "a rung waited behind a hold older than the waiter's patience";
        EXPECT_FALSE(std::filesystem::exists(dir + "/alone")) << "had the GPU alone while others shared it";
        usleep(200000);
    }
    const double alone_at = wait_for_marker(dir + "/alone");
    EXPECT_GT(alone_at, endless_at + 2.5) << "had the GPU alone before the endless one let go";
    EXPECT_LT(alone_at, endless_at + 4.5) << "never had the GPU alone";
    lab::process::wait(endless);
    lab::process::wait(alone);
    // A holder killed: its hold's file is taken away at the next look.
    const pid_t killed = hold_in_child(path, Use::shared, 10, dir + "/killed");
    wait_for_marker(dir + "/killed");
    EXPECT_GT(oldest_hold(path), 0.0);
    kill(killed, SIGKILL);
    lab::process::wait(killed);
    EXPECT_EQ(oldest_hold(path), 0.0) << "a killed holder's hold counted";
    EXPECT_TRUE(std::filesystem::is_empty(path + ".holds")) << "a killed holder's file stayed";
    std::filesystem::remove_all(dir);
}

// Holds shorter than the patience, taken one after another without a gap by two other gradings: the
// waiter holds them up (the queue) until those running end, never lets them in, and has the GPU
// within a hold's time (a waiter that let them in would wait for as long as they keep coming).
TEST(GpuLock, AWaiterForTheGpuAloneIsNotKeptWaitingByShortHolds)
{
    const std::string dir = fresh_folder("lab-gpu-short-holds-test-");
    const std::string path = dir + "/lock";
    // (staggered: a hold is always running)
    const std::vector<pid_t> busy = gradings_holding(path, 2, 1.2, 0.6, 4);
    usleep(900000);
    const double asked = now_seconds();
    {
        const lab::grading::GpuLock lock(path, 2.0);
        EXPECT_LT(now_seconds() - asked, 1.5) << "waited for more than the holds running when it asked";
        EXPECT_EQ(lock.let_others_in(), 0) << "let others in though no hold was older than its patience";
    }
    for (const pid_t child : busy) lab::process::wait(child);
    std::filesystem::remove_all(dir);
}

// Holds longer than the patience, 3 s each, from two gradings half a hold apart, so that one older
// than the patience (1 s) is always running: the waiter lets them in, waits only for the holds held
// when it did (a waiter that waited for a moment with none that old waited for as long as they kept
// coming: 18.8 s of 20 in a helper's simulation), and with its patience doubled has the GPU within a
// few holds' time (about 6.5 s here). Holders killed meanwhile leave nothing behind.
TEST(GpuLock, AWaiterForTheGpuAloneHasItInTheEndThoughLongHoldsKeepComing)
{
    const std::string dir = fresh_folder("lab-gpu-long-holds-test-");
    const std::string path = dir + "/lock";
    const std::vector<pid_t> busy = gradings_holding(path, 2, 3.0, 1.5, 25);
    usleep(2000000);
    const double asked = now_seconds();
    {
        const lab::grading::GpuLock lock(path, 1.0);
        EXPECT_LT(now_seconds() - asked, 12.0) << "kept waiting while holds kept coming";
        EXPECT_GE(lock.let_others_in(), 1);
    }
    for (const pid_t child : busy) kill(child, SIGKILL);
    for (const pid_t child : busy) lab::process::wait(child);
    EXPECT_EQ(oldest_hold(path), 0.0) << "killed holders' holds counted";
    EXPECT_TRUE(std::filesystem::is_empty(path + ".holds"));
    std::filesystem::remove_all(dir);
}

// A waiter that let others in has the GPU as soon as no hold is held, whatever the holds' files say:
// a file left locked by a process that holds no share of the GPU (another user's, planted with an
// ancient time) would otherwise keep it waiting for as long as that process lives.
TEST(GpuLock, AWaiterHasTheGpuOnceNoHoldIsHeldWhateverTheFilesSay)
{
    const std::string dir = fresh_folder("lab-gpu-planted-hold-test-");
    const std::string path = dir + "/lock";
    std::filesystem::create_directories(path + ".holds");
    const pid_t planted = fork();
    ASSERT_GE(planted, 0);
    if (planted == 0) {
        const int fd = ::open((path + ".holds/planted").c_str(), O_RDWR | O_CREAT, 0644);
        const std::int64_t ancient = 1;
        if (fd < 0 || ::flock(fd, LOCK_EX) != 0 || ::pwrite(fd, &ancient, sizeof ancient, 0) != sizeof ancient) _exit(1);
        { std::ofstream(dir + "/planted-ready") << "ready"; }
        usleep(5000000);
        _exit(0);
    }
    while (!std::filesystem::exists(dir + "/planted-ready")) usleep(1000);
    const pid_t rung = hold_in_child(path, Use::shared, 1.5, dir + "/rung");
    const double rung_at = wait_for_marker(dir + "/rung");
    {
        const lab::grading::GpuLock lock(path, 0.3);
        EXPECT_GT(now_seconds(), rung_at + 1.4) << "had the GPU alone beside a hold";
        EXPECT_LT(now_seconds(), rung_at + 3.0) << "waited for a file that no hold held";
        EXPECT_GE(lock.let_others_in(), 1);
    }
    lab::process::wait(rung);
    kill(planted, SIGKILL);
    lab::process::wait(planted);
    std::filesystem::remove_all(dir);
}

// The holds' files are a waiter's hint only: where the folder cannot be made (a file of its name),
// a hold stands without its file, and a waiter waits for it as for a young one.
TEST(GpuLock, AHoldStandsWhereItsFileCannotBeMade)
{
    const std::string dir = fresh_folder("lab-gpu-no-holds-folder-test-");
    const std::string path = dir + "/lock";
    { std::ofstream(path + ".holds") << "not a folder"; }
    const pid_t holder = hold_in_child(path, Use::shared, 1.5, dir + "/held");
    const double held_at = wait_for_marker(dir + "/held");
    ASSERT_LT(held_at, 1e9) << "a hold failed without its file";
    const lab::grading::GpuLock lock(path, 0.3);
    EXPECT_GT(now_seconds(), held_at + 1.4) << "had the GPU alone beside a hold";
    EXPECT_EQ(lock.let_others_in(), 0) << "saw an age it cannot know";
    lab::process::wait(holder);
    std::filesystem::remove_all(dir);
}
