// The one way the kit starts children (lab/process.hpp): exit codes, signals, output, environment,
// working directory, limits, and a program that does not exist.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/process.hpp"

namespace {

namespace fs = std::filesystem;

struct Scratch {
    Scratch()
    {
        char name[] = "/tmp/lab-process-test-XXXXXX";
        dir = mkdtemp(name);
    }
    ~Scratch() { fs::remove_all(dir); }
    std::string file(const std::string& name) const { return dir + "/" + name; }
    std::string read(const std::string& name) const
    {
        std::ifstream in(file(name));
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }
    std::string dir;
};

lab::process::Options into(const std::string& output)
{
    lab::process::Options options;
    options.output = output;
    return options;
}

TEST(Process, ReturnsTheExitCode)
{
    EXPECT_EQ(lab::process::run({"/bin/sh", "-c", "exit 0"}), 0);
    EXPECT_EQ(lab::process::run({"/bin/sh", "-c", "exit 3"}), 3);
}

TEST(Process, AChildKilledByASignalGives128PlusTheSignal)
{
    EXPECT_EQ(lab::process::run({"/bin/sh", "-c", "kill -9 $$"}), 128 + 9);
}

// The child starts with no handler of this process and no signal blocked that this process had
// not blocked: starting it blocks every signal for a moment (vfork), which the child undoes.
volatile sig_atomic_t handled_here = 0;

TEST(Process, AChildGetsTheDefaultActionOfASignalThisProcessHandles)
{
    struct sigaction mine {}, before {};
    mine.sa_handler = [](int) { handled_here = 1; };
    ASSERT_EQ(sigaction(SIGUSR1, &mine, &before), 0);
    // Killed by its own SIGUSR1 (default: end), rather than going on to exit 0 (handled, or blocked).
    EXPECT_EQ(lab::process::run({"/bin/sh", "-c", "kill -USR1 $$; exit 0"}), 128 + SIGUSR1);
    EXPECT_EQ(handled_here, 0);
    struct sigaction after {};
    sigaction(SIGUSR1, &before, &after);
    EXPECT_EQ(after.sa_handler, mine.sa_handler) << "starting a child changed this process's handler";
    sigset_t blocked;
    pthread_sigmask(SIG_SETMASK, nullptr, &blocked);
    EXPECT_FALSE(sigismember(&blocked, SIGUSR1)) << "starting a child left signals blocked here";
}

// Starting a child touches none of this process's memory: no page this process wrote before is
// faulted again when it writes it after (a fork would have made every one of them copy-on-write).
TEST(Process, StartingAChildLeavesThisProcessesMemoryAsItWas)
{
    const std::size_t bytes = std::size_t{64} << 20, page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(memory, MAP_FAILED);
    madvise(memory, bytes, MADV_NOHUGEPAGE);  // a fault a page, not one per huge page
    volatile char* const bytes_at = static_cast<char*>(memory);
    for (std::size_t k = 0; k < bytes; k += page) bytes_at[k] = 1;
    ASSERT_EQ(lab::process::run({"/bin/true"}), 0);
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    for (std::size_t k = 0; k < bytes; k += page) bytes_at[k] = 2;
    getrusage(RUSAGE_SELF, &after);
    munmap(memory, bytes);
    EXPECT_LT(after.ru_minflt - before.ru_minflt, 64) << "of " << bytes / page << " pages written again";
}

TEST(Process, BothStreamsGoToTheOutputFileAndAppendKeepsWhatWasThere)
{
    Scratch scratch;
    const std::string log = scratch.file("log");
    ASSERT_EQ(lab::process::run({"/bin/sh", "-c", "echo out; echo err >&2"}, into(log)), 0);
    EXPECT_EQ(scratch.read("log"), "out\nerr\n");
    auto options = into(log);
    options.append = true;
    ASSERT_EQ(lab::process::run({"/bin/sh", "-c", "echo more"}, options), 0);
    EXPECT_EQ(scratch.read("log"), "out\nerr\nmore\n");
    ASSERT_EQ(lab::process::run({"/bin/sh", "-c", "echo new"}, into(log)), 0);
    EXPECT_EQ(scratch.read("log"), "new\n");
}

TEST(Process, SetsTheEnvironmentAndTheDirectoryAndSearchesPath)
{
    Scratch scratch;
    auto options = into(scratch.file("log"));
    options.environment = {{"LAB_PROCESS_TEST", "seen"}, {"HOME", "/nowhere"}};
    options.directory = scratch.dir;
    options.search_path = true;
    ASSERT_EQ(lab::process::run({"sh", "-c", "echo $LAB_PROCESS_TEST $HOME $(pwd)"}, options), 0);
    EXPECT_EQ(scratch.read("log"), "seen /nowhere " + fs::canonical(scratch.dir).string() + "\n");
}

// A child that runs kernels gets one CUDA work queue, unless the caller's environment says how many.
TEST(Process, GivesAChildOneCudaWorkQueueUnlessTheCallerSetsAnother)
{
    const char* before = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    const std::string kept = before ? before : "";
    ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    EXPECT_EQ(lab::process::cuda_work_queues(), std::make_pair(std::string("CUDA_DEVICE_MAX_CONNECTIONS"), std::string("1")));
    ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "", 1);
    EXPECT_EQ(lab::process::cuda_work_queues().second, "1");
    ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "8", 1);
    EXPECT_EQ(lab::process::cuda_work_queues().second, "8");
    if (before) ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", kept.c_str(), 1);
    else ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
}

TEST(Process, NeverWritesItsOutputThroughALink)
{
    Scratch scratch;
    { std::ofstream(scratch.file("kept")) << "kept\n"; }
    fs::create_symlink(scratch.file("kept"), scratch.file("log"));
    auto options = into(scratch.file("log"));
    options.append = true;
    EXPECT_EQ(lab::process::run({"/bin/sh", "-c", "echo written"}, options), 127);
    EXPECT_EQ(scratch.read("kept"), "kept\n");
}

TEST(Process, AProgramThatCannotStartExitsWith127AndSaysWhy)
{
    Scratch scratch;
    EXPECT_EQ(lab::process::run({"/no/such/program"}, into(scratch.file("log"))), 127);
    EXPECT_EQ(scratch.read("log"), "cannot start /no/such/program: No such file or directory\n");
}

TEST(Process, TheFileSizeLimitStopsAChildThatWritesTooMuch)
{
    Scratch scratch;
    auto options = into(scratch.file("log"));
    options.max_file_bytes = 4096;
    options.directory = scratch.dir;
    const int status = lab::process::run({"/bin/sh", "-c", "head -c 100000 /dev/zero > big"}, options);
    EXPECT_NE(status, 0);
    EXPECT_LE(fs::file_size(scratch.file("big")), 4096u);
}

TEST(Process, TheCpuTimeLimitStopsAChildThatSpins)
{
    auto options = into("/dev/null");
    options.max_cpu_seconds = 1;
    const auto started = std::chrono::steady_clock::now();
    const int status = lab::process::run({"/bin/sh", "-c", "while :; do :; done"}, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(status, 128 + SIGXCPU);
    EXPECT_LT(seconds, 10.0);
}

TEST(Process, ACgroupThatCannotBeJoinedStopsTheStart)
{
    auto options = into("/dev/null");
    options.cgroups = {"/nonexistent-cgroup"};
    EXPECT_EQ(lab::process::start({"/bin/true"}, options), -1);
}

TEST(Process, KillGroupStopsTheChildAndWhatItStarted)
{
    Scratch scratch;
    auto options = into(scratch.file("log"));
    options.group = lab::process::Options::Group::process_group;
    // The child starts a grandchild that would write a file after a second, then waits.
    const pid_t pid = lab::process::start({"/bin/sh", "-c", "(sleep 1; touch " + scratch.file("late") + ") & sleep 30"}, options);
    ASSERT_GT(pid, 0);
    usleep(200000);
    lab::process::kill_group(pid);
    sleep(2);
    EXPECT_FALSE(fs::exists(scratch.file("late"))) << "a process the child started outlived kill_group";
}

// CPU seconds (lab::process::cpu_seconds): a child's own and its grandchild's count to the account
// its starting thread was in, or to the one its options name; a child started outside any counts
// to "other", and an idle child adds next to nothing.
TEST(Process, ChildrenCountTheirCpuTimeAndTheirChildrensToTheAccountTheyStartedIn)
{
    const auto seconds = [](const std::string& account) {
        const auto all = lab::process::cpu_seconds();
        const auto found = all.find(account);
        return found == all.end() ? 0.0 : found->second;
    };
    // About 0.4 s of a core, half of it in a grandchild the child waits for: each spins until it
    // has had 0.2 s of a core (perl, which every Debian has), not 0.2 s of the clock, which a
    // loaded machine gives as less.
    const std::string spin = "spin() { /usr/bin/perl -e '1 while (times)[0] + (times)[1] < 0.2'; }; ";
    {
        lab::process::Account account("process-test-spin");
        ASSERT_EQ(lab::process::run({"/bin/sh", "-c", spin + "spin; (" + spin + "spin) & wait"}), 0);
    }
    EXPECT_GE(seconds("process-test-spin"), 0.3) << "the child's and its grandchild's CPU time, about 0.4 s";
    EXPECT_LT(seconds("process-test-spin"), 5.0);

    const double other_before = seconds("other");
    lab::process::Options named;
    named.account = "process-test-named";
    {
        lab::process::Account account("process-test-unused");
        const pid_t pid = lab::process::start({"/bin/sh", "-c", spin + "spin"}, named);
        ASSERT_GT(pid, 0);
        int status = 0;
        ASSERT_TRUE(lab::process::wait_for(pid, 30, status));
    }
    EXPECT_GE(seconds("process-test-named"), 0.15);
    EXPECT_EQ(seconds("process-test-unused"), 0.0) << "a child whose options name its account counted elsewhere";

    {
        lab::process::Account account("process-test-idle");
        ASSERT_EQ(lab::process::run({"/bin/sh", "-c", "sleep 0.3"}), 0);
    }
    EXPECT_LT(seconds("process-test-idle"), 0.1) << "a child that slept counted as busy";
    ASSERT_EQ(lab::process::run({"/bin/sh", "-c", spin + "spin"}), 0);
    EXPECT_GE(seconds("other") - other_before, 0.15) << "a child started outside any account was not counted";
}

}  // namespace
