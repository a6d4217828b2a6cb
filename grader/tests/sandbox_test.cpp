// The grader's sandbox (trusted/sandbox.*), run under the isolation this machine picks
// (Kit.Grader.Sandbox.*) and again with LAB_ISOLATION=unshare (Kit.Grader.Unshare): what a
// sandboxed program may see, write, reach and use.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "builder.hpp"
#include "lab/process.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "sandbox.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lab::grading;

// Each test's first line: skipped where this machine has no sandbox to test (with the reason),
// except as root with unshare at hand: the unshare fallback needs nothing but util-linux, so failing
// to make it is a fault.
#define SKIP_WITHOUT_A_SANDBOX()                                                                          \
    do {                                                                                                  \
        if (!isolation().error.empty()) {                                                                 \
            if (geteuid() == 0 && !lab::process::find_program("unshare").empty()) FAIL() << isolation().error; \
            GTEST_SKIP() << isolation().error;                                                            \
        }                                                                                                 \
        if (isolation().kind == Isolation::none) GTEST_SKIP() << "LAB_ISOLATION=none";                    \
    } while (0)

// A folder of this test process's own: the sandbox tests run at once under both isolations
// (Kit.Grader.Sandbox.* and Kit.Grader.Unshare), and one must not delete the other's files.
std::string sandbox_test_dir()
{
    return grading_build_dir() + "/grading/sandbox-test-" + std::to_string(getpid());
}

// Runs a shell script in the sandbox; what it printed, and its exit code in `status`.
std::string in_sandbox(const std::string& script, SandboxSpec spec, int& status,
                       const std::vector<std::pair<std::string, std::string>>& environment = {})
{
    const std::string log = sandbox_test_dir() + ".log";
    const Sandbox sandbox({"/bin/sh", "-c", script}, spec);
    lab::process::Options options = sandbox.options(log);
    options.environment = environment;
    status = lab::process::run(sandbox.argv(), options);
    std::ifstream in(log);
    const std::string printed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove(log);
    return printed + sandbox.limit_reached();
}

// A sandboxed program's CPU time counts to the account its sandbox was made in, its children's too,
// and once: bubblewrap reaps its command in a PID namespace of its own, where wait4 sees none of it,
// so the sandbox's cgroup counts it (lab::process::Options::cpu_counted_elsewhere).
TEST(Sandbox, CountsItsProgramsCpuTimeOnce)
{
    SKIP_WITHOUT_A_SANDBOX();
    const auto seconds = [] {
        const auto all = lab::process::cpu_seconds();
        const auto found = all.find("sandbox-test-spin");
        return found == all.end() ? 0.0 : found->second;
    };
    // 1 s of a core in the program and 1 s in a child it waits for (each spins until it has had
    // that much of a core, however busy the machine): long beside the sandbox's making, whose own
    // cost varies by a few tenths on a loaded machine (1.4 s under unshare at a load of 9 on 2 cores).
    const std::string spin = "spin() { /usr/bin/perl -e '1 while (times)[0] + (times)[1] < 1.0'; }; ";
    SandboxSpec spec;
    spec.writable = {grading_build_dir() + "/grading"};
    int status = -1;
    // The sandbox's own making costs time too (the unshare fallback's mounts, say): counted once
    // for a program that does nothing, and taken off.
    {
        const lab::process::Account account("sandbox-test-spin");
        in_sandbox("true", spec, status);
    }
    ASSERT_EQ(status, 0);
    const double making = seconds();
    {
        const lab::process::Account account("sandbox-test-spin");
        in_sandbox(spin + "spin; (" + spin + "spin) & wait", spec, status);
    }
    ASSERT_EQ(status, 0);
    const double spun = seconds() - 2 * making;
    EXPECT_GE(spun, 1.4) << "a sandboxed program's time (about 2 s) was not counted, under " << isolation().name
                         << " (the sandbox's making: " << making << " s)";
    EXPECT_LT(spun, 3.2) << "a sandboxed program's time (about 2 s) was counted twice, under " << isolation().name
                         << " (the sandbox's making: " << making << " s)";
}

// What a sandboxed program sees: the secrets empty, none of the grader's other variables, nothing
// writable but its own folder, no home folders, no network. Run once with the isolation this
// machine picks and once with LAB_ISOLATION=unshare (Kit.Grader.Unshare.*).
TEST(Sandbox, HidesTheSecretsTheEnvironmentAndTheKit)
{
    SKIP_WITHOUT_A_SANDBOX();
    const std::string work = sandbox_test_dir();
    fs::remove_all(work);
    fs::create_directories(work);
    const std::string kit = lab::kit_root();
    const std::string script =
        "cat '" + kit + "/grader/hidden_cases.json' '" + kit + "/solutions/03_sequential.cu'; echo \"token=$LAB_SANDBOX_TEST\"; "
        "touch '" + kit + "/rungs.json' 2>/dev/null && echo wrote-the-kit; touch '" + work + "/mine' && echo wrote-its-own; "
        "ls -A /root /home 2>/dev/null | grep -v ':$' | grep -q . && echo saw-a-home; "
        "ls /dev | grep -qx sda && echo saw-a-disk; "
        "grep -qv -e '^Inter' -e '^ face' -e 'lo:' /proc/net/dev && echo has-a-network; "
        "(echo lab-sandbox-test > /proc/sys/kernel/hostname) 2>/dev/null && echo wrote-a-kernel-setting; "
        "grep CapEff /proc/self/status | grep -qv 0000000000000000 && echo has-capabilities; echo done";
    SandboxSpec spec;
    spec.writable = {work};
    int status = -1;
    const std::string printed = in_sandbox(script, spec, status, {{"LAB_SANDBOX_TEST", "a-secret-token"}});
    EXPECT_EQ(status, 0);
    EXPECT_EQ(printed, "token=\nwrote-its-own\ndone\n");
    EXPECT_TRUE(fs::exists(work + "/mine"));
    fs::remove_all(work);
}

// Every CUDA process of a grading makes its context with one work queue (sandbox.cpp,
// passed_environment: a host makes its contexts one at a time, and such a context is made in a
// third of the time), unless the instructor's environment gives a number of its own.
TEST(Sandbox, GivesItsCudaProcessesOneWorkQueue)
{
    SKIP_WITHOUT_A_SANDBOX();
    const char* before = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    const std::string kept = before ? before : "";
    SandboxSpec spec;
    int status = -1;
    ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    EXPECT_EQ(in_sandbox("echo \"queues=$CUDA_DEVICE_MAX_CONNECTIONS\"", spec, status), "queues=1\n");
    EXPECT_EQ(status, 0);
    ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
    EXPECT_EQ(in_sandbox("echo \"queues=$CUDA_DEVICE_MAX_CONNECTIONS\"", spec, status), "queues=4\n");
    EXPECT_EQ(status, 0);
    if (before) ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", kept.c_str(), 1);
    else ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
}

// A service of the host listens on a Unix socket where such services keep theirs (/run: docker's,
// dbus's, systemd's): outside the sandbox a client reaches it, inside it reaches nothing. A
// read-only view of / once let a runner connect() and send (connect needs no write to the file).
TEST(Sandbox, ReachesNoSocketOfTheHost)
{
    SKIP_WITHOUT_A_SANDBOX();
    // The system's python3: one under a home folder (pyenv's) is not there inside the sandbox.
    const std::string python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "";
    if (python.empty()) GTEST_SKIP() << "no /usr/bin/python3 here to play the client";
    std::string folder = "/run";
    if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); geteuid() != 0 && runtime && *runtime) folder = runtime;
    const std::string path = folder + "/lab-sandbox-probe-" + std::to_string(getpid()) + ".sock";
    const int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(listener, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
    unlink(path.c_str());
    if (bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        close(listener);
        GTEST_SKIP() << "cannot listen in " << folder << " here (not root?)";
    }
    ASSERT_EQ(listen(listener, 4), 0);
    chmod(path.c_str(), 0666);  // anyone may connect, as to dbus's system bus or journald's socket
    const std::string client = "'" + python + "' -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('" + path +
                               "'); s.sendall(b'hello'); print('reached-the-host')\"; echo done";
    // Outside, the probe must reach the listener, or the test proves nothing.
    const std::string log = sandbox_test_dir() + ".outside";
    lab::process::Options options;
    options.output = log;
    lab::process::run({"/bin/sh", "-c", client}, options);
    EXPECT_EQ(lab::read_file(log), "reached-the-host\ndone\n") << "the probe cannot reach its own listener";
    fs::remove(log);
    int status = -1;
    const std::string inside = in_sandbox(client, SandboxSpec{}, status);
    EXPECT_EQ(status, 0);
    EXPECT_EQ(inside.find("reached-the-host"), std::string::npos) << "a sandboxed program reached a socket of the host at " << path;
    EXPECT_NE(inside.find("Error"), std::string::npos) << "the client did not run in the sandbox: " << inside;
    close(listener);
    unlink(path.c_str());
}

// The limits hold inside the sandbox: CPU time, file size, and where a cgroup can be made,
// processes (a fork bomb) and memory.
TEST(Sandbox, StopsWhatGoesPastItsLimits)
{
    if (!isolation().error.empty()) {
        // As root, the unshare fallback needs nothing but util-linux: failing to make it is a fault.
        if (geteuid() == 0 && !lab::process::find_program("unshare").empty()) FAIL() << isolation().error;
        GTEST_SKIP() << isolation().error;
    }
    const std::string work = sandbox_test_dir();
    fs::remove_all(work);
    fs::create_directories(work);
    SandboxSpec spec;
    spec.writable = {work};
    spec.limits.cpu_seconds = 1;
    spec.limits.file_bytes = 1 << 20;
    int status = -1;
    in_sandbox("while :; do :; done", spec, status);
    EXPECT_EQ(status, 128 + SIGXCPU) << "a spinning program outlived its CPU time";
    in_sandbox("head -c 4000000 /dev/zero > '" + work + "/big'", spec, status);
    EXPECT_LE(fs::file_size(work + "/big"), 1u << 20) << "a program wrote past its file limit";
    // Many files, each under the per-file limit, do not fill the machine's memory through /tmp: its
    // own /tmp holds 1 GiB at most (2,000 files of 1 MiB stop near 1,024).
    const std::string filled = in_sandbox(
        "mkdir /tmp/fill && for i in $(seq 2000); do head -c 1048576 /dev/zero > /tmp/fill/$i 2>/dev/null || break; done; "
        "du -sm /tmp/fill | cut -f1",  // the files alone: a kit that lies in /tmp is seen there too
        spec, status);
    EXPECT_LE(std::atoi(filled.c_str()), 1025) << "the sandbox's /tmp took " << filled << " MiB";
    EXPECT_GE(std::atoi(filled.c_str()), 512) << filled;
    spec.limits = {};
    if (cgroup_support().processes.empty()) {
        spec.limits.processes = 40;
        // 100 sleeping children: only about 40 can exist at once.
        const std::string printed =
            in_sandbox("n=0; for i in $(seq 100); do sleep 5 & n=$((n+1)); done 2>/dev/null; echo started", spec, status);
        EXPECT_NE(printed.find("more than 40 processes"), std::string::npos) << printed;
    }
    if (cgroup_support().memory.empty()) {
        spec.limits = {};
        spec.limits.memory_bytes = std::uint64_t{64} << 20;
        // 256 MiB held in memory by one process: killed at 64.
        const std::string printed = in_sandbox("head -c 268435456 /dev/zero | tail -c 268435456 > /dev/null; echo survived",
                                               spec, status);
        EXPECT_NE(printed.find("over the memory limit of 64 MiB"), std::string::npos) << printed;
    }
    fs::remove_all(work);
}

// A folder hidden from the sandbox may lie in /tmp (grade-all --out /tmp/class: this run's reports),
// which the sandbox replaces with its own: it stays unseen, and the sandbox is still made (the
// unshare fallback once failed there, looking for the folder's mount point in the empty /tmp).
// A hidden folder inside a writable one in /tmp stays hidden too.
TEST(Sandbox, HidesAFolderThatLiesInTmp)
{
    SKIP_WITHOUT_A_SANDBOX();
    char reports[] = "/tmp/lab-hidden-XXXXXX";
    char writable[] = "/tmp/lab-writable-XXXXXX";
    ASSERT_NE(mkdtemp(reports), nullptr);
    ASSERT_NE(mkdtemp(writable), nullptr);
    const std::string secret_in_writable = std::string(writable) + "/secrets";
    fs::create_directories(secret_in_writable);
    for (const std::string& folder : {std::string(reports), secret_in_writable}) {
        std::ofstream(folder + "/report.json") << "secret";
        hide_in_sandbox(folder);
    }
    SandboxSpec spec;
    spec.writable = {writable};
    int status = -1;
    const std::string printed = in_sandbox(std::string("cat '") + reports + "/report.json' '" + secret_in_writable +
                                               "/report.json' 2>/dev/null; touch '" + writable + "/mine' && echo wrote-its-own",
                                           spec, status);
    EXPECT_EQ(status, 0) << printed;
    EXPECT_EQ(printed, "wrote-its-own\n");
    EXPECT_TRUE(fs::exists(std::string(writable) + "/mine"));
    fs::remove_all(reports);
    fs::remove_all(writable);
}

// The folders beside the build tree (the kit's build/: other trees, a test's copies of the kit, a
// folder a corpus entry plants) come and go while a grading runs. One removed after the sandbox's
// plan was made and before it started once stopped the sandbox from starting ("Can't mount tmpfs
// on ...: No such file or directory"), and one made in between was in sight. Both are planted here.
TEST(Sandbox, KeepsUpWithFoldersBesideTheTree)
{
    SKIP_WITHOUT_A_SANDBOX();
    const std::string build = grading_build_dir(), beside = fs::path(build).parent_path().string();
    if (!(beside.rfind(lab::kit_root() + "/", 0) == 0))
        GTEST_SKIP() << "this build tree (" << build << ") does not lie in a folder of the kit's own";
    const std::string tag = std::to_string(getpid());
    const std::string gone = beside + "/sandbox-test-gone-" + tag, late = beside + "/sandbox-test-late-" + tag;
    fs::create_directories(gone);
    fs::remove_all(late);
    const std::string log = sandbox_test_dir() + ".beside";
    const Sandbox sandbox({"/bin/sh", "-c", "cat '" + late + "/secret' 2>/dev/null; test -f '" + build +
                                                "/CMakeCache.txt' && echo sees-its-tree; echo done"},
                          SandboxSpec{});
    fs::remove_all(gone);
    fs::create_directories(late);
    std::ofstream(late + "/secret") << "made-after-the-plan\n";
    const int status = lab::process::run(sandbox.argv(), sandbox.options(log));
    std::ifstream in(log);
    const std::string printed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove(log);
    fs::remove_all(late);
    EXPECT_EQ(status, 0) << printed;
    EXPECT_EQ(printed, "sees-its-tree\ndone\n");
}

}  // namespace
