// TRUSTED SIDE. See sandbox.hpp.
#include "sandbox.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "lab/registry.hpp"

namespace lab::grading {

namespace {

namespace fs = std::filesystem;

std::mutex g_hidden_mutex;
std::vector<std::string> g_hidden_extra;

std::string absolute(const std::string& path)
{
    std::error_code error;
    const fs::path full = fs::weakly_canonical(fs::absolute(path), error);
    return error ? path : full.string();
}

bool inside(const std::string& path, const std::string& folder)
{
    return path == folder || path.rfind(folder + "/", 0) == 0;
}

// An empty file dated 1970, which hidden files are replaced by.
std::string empty_file()
{
    static const std::string path = [] {
        const std::string file = grading_build_dir() + "/sandbox-empty";
        std::error_code error;
        if (!fs::exists(file, error) || fs::file_size(file, error) != 0) {
            fs::remove(file, error);
            std::ofstream{file};
        }
        const timespec epoch[2] = {{0, 0}, {0, 0}};
        utimensat(AT_FDCWD, file.c_str(), epoch, 0);
        return file;
    }();
    return path;
}

std::vector<std::string> gpu_nodes()
{
    std::vector<std::string> nodes;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator("/dev", error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("nvidia", 0) == 0 && !entry.is_directory(error)) nodes.push_back(entry.path().string());
    }
    std::sort(nodes.begin(), nodes.end());
    return nodes;
}

// The environment a sandboxed program gets: these variables of the grader's, and nothing else
// (no CI tokens), with HOME and TMPDIR its own /tmp. A build tree configured with ccache as its
// compilers' launcher (cli/kit.cpp) calls the compilers directly here: a submission's objects are
// never taken from a cache, nor put in one that the next grading could read.
std::vector<std::pair<std::string, std::string>> passed_environment()
{
    std::vector<std::pair<std::string, std::string>> passed;
    for (const char* name : {"PATH", "LD_LIBRARY_PATH", "LANG", "LAB_ROOT", "LAB_CPU_WORKERS", "CUDA_VISIBLE_DEVICES", "CUDA_HOME"})
        if (const char* value = std::getenv(name)) passed.emplace_back(name, value);
    // One hardware work queue for each CUDA context (lab::process::cuda_work_queues): a host's
    // driver makes its contexts one at a time, whichever GPU they are on, and one with a single
    // queue is made in a third of the time (2026-11-28, an H200: 61 ms against 130 alone, 36 ms
    // against 120 a context with twelve made at once), so that every runner and sanitizer tool of a
    // class starts sooner. An instructor's own value holds.
    passed.push_back(lab::process::cuda_work_queues());
    passed.emplace_back("HOME", "/tmp");
    passed.emplace_back("TMPDIR", "/tmp");
    passed.emplace_back("CCACHE_DISABLE", "1");
    return passed;
}

// How much a fresh folder (/tmp, the home folders) may hold: its files live in memory, and many
// files each under the per-file limit would otherwise fill the machine's (nvcc's temporary files
// take tens of MiB).
constexpr std::uint64_t kFreshBytes = std::uint64_t{1} << 30;

// What the sandbox's file system is made of, whichever way it is made.
struct Layout {
    std::vector<std::string> fresh;         // empty and writable, its own: /tmp and the home folders
    std::vector<std::string> seen;          // read-only, seen again inside a fresh folder: the kit, its build tree
    std::vector<std::string> hidden_dirs;   // empty (the corpus, other gradings, this run's reports)
    std::vector<std::string> hidden_files;  // replaced by an empty file (the hidden cases, each solution)
    std::vector<std::string> writable, readable;
};

bool inside_any(const std::string& path, const std::vector<std::string>& folders)
{
    return std::any_of(folders.begin(), folders.end(), [&](const std::string& f) { return inside(path, f); });
}

Layout layout_of(const SandboxSpec& spec)
{
    Layout l;
    const std::string kit = kit_root(), build = absolute(grading_build_dir());
    l.fresh = {"/tmp", "/root", "/home"};
    if (const char* home = std::getenv("HOME"); home && *home && absolute(home) != "/") l.fresh.push_back(absolute(home));
    std::error_code error;
    // Where the host's services keep their sockets (docker's, dbus's, systemd's, a rootless engine's
    // under /run/user): a read-only view of / does not stop connect(), so these are emptied too.
    // (/var/run is most often a link to /run; abstract sockets stay behind the network namespace.)
    for (const char* sockets : {"/run", "/var/run"})
        if (!fs::is_symlink(sockets, error)) l.fresh.push_back(sockets);
    l.fresh.erase(std::remove_if(l.fresh.begin(), l.fresh.end(),
                                 [&](const std::string& f) { return !fs::is_directory(f, error); }),
                  l.fresh.end());
    std::sort(l.fresh.begin(), l.fresh.end());
    l.fresh.erase(std::unique(l.fresh.begin(), l.fresh.end()), l.fresh.end());
    // A home folder inside another fresh one (/home/grader) is emptied with it.
    std::vector<std::string> outermost;
    for (const auto& f : l.fresh)
        if (std::none_of(l.fresh.begin(), l.fresh.end(), [&](const std::string& o) { return o != f && inside(f, o); }))
            outermost.push_back(f);
    l.fresh = outermost;
    l.seen = {kit, build};
    for (const auto& w : spec.writable) l.writable.push_back(absolute(w));
    for (const auto& r : spec.readable) l.readable.push_back(absolute(r));
    // (The kit's .git too: an instructor's history holds every solution.)
    std::vector<std::string> hidden{kit + "/grader/hidden_cases.json", kit + "/solutions", kit + "/grader/corpus",
                                    build + "/grading", kit + "/.git"};
    {
        std::lock_guard<std::mutex> lock(g_hidden_mutex);
        hidden.insert(hidden.end(), g_hidden_extra.begin(), g_hidden_extra.end());
    }
    // Every copy of the references, in any form: the planted mistakes (tests/mutants.json quotes
    // solution lines), and in the build tree (and the CPU-backend tree a GPU grading keeps inside it)
    // the rewritten copies, the mutants' and the speed tests' kernels, the objects and programs built
    // from them. A submission's build needs none of them (its runner is the kit's harness, its
    // libraries and the submission).
    hidden.push_back(kit + "/tests/mutants.json");
    for (const std::string& tree : {build, build + "/grader/cpu-backend"}) {
        if (!fs::is_directory(tree, error)) continue;
        // The tests' programs and the mutants, whole; but the files CMake generates there, which a
        // newer CMake names as outputs of its build.ninja (hidden, they would be made again inside
        // the sandbox, and that fails), are seen again.
        hidden.push_back(tree + "/tests");
        for (const char* generated : {"/tests/cmake_install.cmake", "/tests/CTestTestfile.cmake"})
            if (fs::exists(tree + generated, error)) l.readable.push_back(tree + generated);
        // Elsewhere, what lies in the folders (the build writes beside them). bin/ holds every
        // program of the build (the grader's and the runners a grading builds among them): of it,
        // what tests/ makes (the suites programs and their runners, linked with the references,
        // the mutants', the kit's test programs).
        const std::vector<std::pair<std::string, std::vector<std::string>>> copies{
            {tree + "/CMakeFiles", {"rung_"}},
            {tree + "/cpu_sources", {"rung_", "mutant_", "driver_speed_"}},
            {tree + "/nvcc_check", {"rung_", "mutant_", "driver_speed_"}},
            {tree + "/bin", {"test_", "exercise_", "judged_", "mutant_", "kit_tests", "case_verdict_tests", "device_input_tests",
                             "guarded_memory_tests", "speed_measurement_tests", "driver_speed_tests", "emulator_tests",
                             "construct_tests"}}};
        for (const auto& [folder, prefixes] : copies)
            for (const auto& entry : fs::directory_iterator(folder, error)) {
                const std::string name = entry.path().filename().string();
                // A runner's RUNNER.hung (its count of time limits, tests/support/judging.hpp) holds no
                // copy of anything, and comes and goes while the kit's tests run beside a grading: hidden,
                // one that went between this listing and the sandbox's start left bwrap a mount point
                // it could not make ("Can't create file at ...mutant_...-runner.hung"), and the rung's
                // every case failed.
                if (name.size() > 5 && name.compare(name.size() - 5, 5, ".hung") == 0) continue;
                if (std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return name.rfind(p, 0) == 0; }))
                    hidden.push_back(entry.path().string());
            }
        // Every other folder at the top of the tree that CMake did not make (it holds no
        // cmake_install.cmake) and the build does not need: what the kit's own tests leave there
        // (copies of the whole kit, solutions/ among them, from the release and generate tests; the
        // handouts' and the batch's scratch; Testing/), and whatever comes next.
        for (const auto& entry : fs::directory_iterator(tree, error)) {
            const std::string name = entry.path().filename().string();
            if (!entry.is_directory(error) || entry.is_symlink(error) || name == "CMakeFiles" || name == "cpu_sources" ||
                name == "nvcc_check" || name == "bin" || fs::exists(entry.path() / "cmake_install.cmake", error))
                continue;
            hidden.push_back(entry.path().string());
        }
    }
    // Everything beside this tree but the kit's own files: the other build trees (the kit's build/
    // holds ./lab's, the suites', a GPU's, each with its own copies of the references), ccache's
    // folder (objects compiled from them), and whatever else lies in build/ (a copy of the
    // solutions graded as a submission, a class's submissions), and so on up every folder above the
    // tree that lies in the kit (a tree inside another's grading/, as grade-all's node trees are in
    // its tests). In the kit's own folder, where the kit's sources lie beside a tree made there, and
    // beside a tree outside the kit, only other build trees and ccache's folder.
    std::vector<fs::path> parents{fs::path(kit), fs::path(kit) / "build", fs::path(build).parent_path()};
    for (fs::path above = fs::path(build).parent_path(); inside(above.string(), kit) && above.string() != kit;
         above = above.parent_path())
        parents.push_back(above);
    std::sort(parents.begin(), parents.end());
    parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
    // A folder hidden whole is hidden as one mount, the tree inside it seen again, rather than
    // entry by entry: what is made there after the sandbox's plan (a test's scratch, a class's next
    // submission) is hidden too, and what is removed meanwhile leaves no mount point missing (one
    // grading's sandbox once failed to start when another removed the folder it planted beside).
    std::vector<std::string> wholesale;
    for (const fs::path& parent : parents) {
        const bool whole = inside(parent.string(), kit) && parent.string() != kit;
        if (whole && inside(build, parent.string())) {
            if (parent.string() != build) wholesale.push_back(parent.string());
            continue;
        }
        for (const auto& entry : fs::directory_iterator(parent, error)) {
            const std::string path = entry.path().string(), name = entry.path().filename().string();
            if (!entry.is_directory(error) || entry.is_symlink(error) || inside(build, path) || inside(kit, path)) continue;
            if (whole || fs::exists(entry.path() / "CMakeCache.txt", error) || name == "ccache" || name == ".ccache")
                hidden.push_back(path);
        }
    }
    for (const auto& path : hidden) {
        // A report folder that holds the kit (--out .) stays in sight, read-only like the rest.
        if (!fs::exists(path, error) || inside(kit, path) || inside(build, path)) continue;
        if (path == kit + "/solutions") {
            // The build files name each solution (the planted mistakes are made from them): each
            // stays a file, empty and older than the build, so that nothing is rebuilt for it.
            for (const auto& entry : fs::directory_iterator(path, error))
                if (entry.is_regular_file(error)) l.hidden_files.push_back(entry.path().string());
        } else if (fs::is_directory(path, error)) {
            l.hidden_dirs.push_back(path);
        } else {
            l.hidden_files.push_back(path);
        }
    }
    l.hidden_dirs.insert(l.hidden_dirs.end(), wholesale.begin(), wholesale.end());
    // What lies in a hidden folder is hidden with it (and has no mount point left to cover), unless
    // something between them is seen again (the build tree in a folder hidden whole).
    const auto seen_again_between = [&](const std::string& p, const std::string& d) {
        for (const auto* list : {&l.seen, &l.readable, &l.writable})
            for (const auto& e : *list)
                if (e != d && inside(e, d) && inside(p, e)) return true;
        return false;
    };
    const auto in_other_hidden = [&](const std::string& p) {
        return std::any_of(l.hidden_dirs.begin(), l.hidden_dirs.end(),
                           [&](const std::string& d) { return d != p && inside(p, d) && !seen_again_between(p, d); });
    };
    std::vector<std::string> dirs, files;
    for (const auto& d : l.hidden_dirs)
        if (!in_other_hidden(d) && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
    for (const auto& f : l.hidden_files)
        if (!in_other_hidden(f)) files.push_back(f);
    // What lies in a fresh folder (a report folder under /tmp) is gone with it, unless it lies in
    // something seen again there (a build tree under /tmp): hiding it again would need a mount
    // point that no longer exists.
    const auto gone_with_fresh = [&](const std::string& p) {
        return inside_any(p, l.fresh) && !inside_any(p, l.seen) && !inside_any(p, l.readable) && !inside_any(p, l.writable);
    };
    l.hidden_dirs.clear();
    l.hidden_files.clear();
    std::copy_if(dirs.begin(), dirs.end(), std::back_inserter(l.hidden_dirs), [&](const std::string& d) { return !gone_with_fresh(d); });
    std::copy_if(files.begin(), files.end(), std::back_inserter(l.hidden_files), [&](const std::string& f) { return !gone_with_fresh(f); });
    return l;
}

// The namespaces: all bubblewrap knows (network, processes, IPC, host name, user, cgroup).
// Every capability dropped: as root, bubblewrap would otherwise leave the program root in its own
// namespaces, able to unmount what hides the secrets.
const std::vector<std::string> kBwrapIsolation{"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"};

std::vector<std::string> bwrap_command(const std::vector<std::string>& command, const SandboxSpec& spec)
{
    const Layout l = layout_of(spec);
    std::vector<std::string> w{bwrap(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/sys", "/sys"};
    // As root, the sandbox's uid is the machine's root, which may write the kernel's settings under
    // /proc/sys (no capability is asked for most) and the files under /proc/irq and /proc/bus;
    // bubblewrap covers them only when their folder is writable, which it is not.
    for (const char* p : {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"})
        if (access(p, F_OK) == 0) w.insert(w.end(), {"--ro-bind", p, p});
    if (spec.gpu)
        for (const auto& node : gpu_nodes()) w.insert(w.end(), {"--dev-bind", node, node});
    // Mounts stack outermost first, so that each lands on what is mounted around it: a fresh /tmp,
    // the kit and its build tree seen again in it, a folder hidden whole around the tree, the tree
    // seen again inside that, the secrets in the tree, what may be read or written inside them.
    // At one path: fresh, seen, hidden, readable, writable (the last one mounted is what shows).
    struct Mount {
        std::string path;
        int order;
        std::vector<std::string> args;
    };
    std::vector<Mount> mounts;
    for (const auto& f : l.fresh) mounts.push_back({f, 0, {"--size", std::to_string(kFreshBytes), "--tmpfs", f}});
    for (const auto& s : l.seen) mounts.push_back({s, 1, {"--ro-bind", s, s}});
    for (const auto& d : l.hidden_dirs) mounts.push_back({d, 2, {"--tmpfs", d}});
    for (const auto& f : l.hidden_files) mounts.push_back({f, 2, {"--ro-bind", empty_file(), f}});
    for (const auto& path : l.readable) mounts.push_back({path, 3, {"--ro-bind", path, path}});
    for (const auto& path : l.writable) mounts.push_back({path, 4, {"--bind", path, path}});
    const auto depth = [](const std::string& path) { return std::count(path.begin(), path.end(), '/'); };
    std::stable_sort(mounts.begin(), mounts.end(), [&](const Mount& a, const Mount& b) {
        return depth(a.path) != depth(b.path) ? depth(a.path) < depth(b.path) : a.order < b.order;
    });
    for (const auto& m : mounts) w.insert(w.end(), m.args.begin(), m.args.end());
    w.push_back("--clearenv");
    for (const auto& [name, value] : passed_environment()) w.insert(w.end(), {"--setenv", name, value});
    w.insert(w.end(), kBwrapIsolation.begin(), kBwrapIsolation.end());
    w.push_back("--");
    w.insert(w.end(), command.begin(), command.end());
    return w;
}

std::string shell_quoted(const std::string& text)
{
    std::string q = "'";
    for (const char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// How the unshare fallback's script begins a line saying why it could not make the sandbox.
constexpr const char* kUnshareComplaint = "lab sandbox (unshare): ";

// The same sandbox made without bubblewrap: `unshare` gives new mount, network, IPC, host-name and
// process namespaces, a script makes the mounts, and `setpriv` drops every capability before the
// command runs, so that it can undo none of them (and, with no network namespace of its own to
// configure, has no loopback either).
std::vector<std::string> unshare_command(const std::vector<std::string>& command, const SandboxSpec& spec)
{
    const Layout l = layout_of(spec);
    std::vector<std::string> replaced = l.fresh;  // folders whose contents are replaced, outermost first
    replaced.push_back("/dev");
    replaced.insert(replaced.end(), l.hidden_dirs.begin(), l.hidden_dirs.end());
    std::stable_sort(replaced.begin(), replaced.end(),
                     [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
    const auto innermost = [&](const std::string& path) {
        std::string best;
        for (const auto& r : replaced)
            if (inside(path, r) && path != r && r.size() > best.size()) best = r;
        return best;
    };
    // What must still be seen inside a replaced folder, staged before the folder is replaced.
    struct Keep {
        std::string path;
        bool writable, directory;
    };
    std::vector<Keep> keeps;
    std::error_code error;
    auto keep = [&](const std::string& path, bool writable) {
        if (!innermost(path).empty()) keeps.push_back({path, writable, fs::is_directory(path, error)});
    };
    for (const auto& s : l.seen) keep(s, false);
    for (const auto& r : l.readable) keep(r, false);
    for (const auto& w : l.writable) keep(w, true);
    for (const char* node : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}) keep(node, true);
    if (spec.gpu)
        for (const auto& node : gpu_nodes()) keep(node, true);
    std::stable_sort(keeps.begin(), keeps.end(), [](const Keep& a, const Keep& b) { return a.path.size() < b.path.size(); });

    // The staging folder: a tmpfs mounted, in the sandbox's own mount namespace, over a system
    // folder that nothing here replaces (not in the build tree, which may lie in /tmp), and
    // unmounted again at the end, which shows the folder as it was.
    std::vector<std::string> mount_points;  // none may lie under it: the read-only pass would miss them
    {
        std::ifstream info("/proc/self/mountinfo");
        for (std::string line; std::getline(info, line);) {
            std::istringstream fields(line);
            std::string field;
            for (int k = 0; k < 5 && fields >> field; ++k) {
            }
            mount_points.push_back(field);
        }
    }
    std::string stage;
    for (const char* candidate : {"/mnt", "/media", "/srv", "/opt", "/var/tmp", "/usr/src", "/usr/share"}) {
        const std::string c = candidate;
        const bool covered = inside_any(c, replaced) || inside_any(c, l.seen) || inside_any(c, l.writable) ||
                             inside_any(c, l.readable) ||
                             std::any_of(replaced.begin(), replaced.end(), [&](const std::string& r) { return inside(r, c); }) ||
                             std::any_of(mount_points.begin(), mount_points.end(), [&](const std::string& m) { return inside(m, c); });
        if (!covered && fs::is_directory(c, error)) {
            stage = c;
            break;
        }
    }
    if (stage.empty()) stage = "/mnt";
    std::ostringstream s;
    s << "fail() { echo \"" << kUnshareComplaint << "$*\" >&2; exit 126; }\n"
      << "mount --make-rprivate / || fail 'cannot make the mounts private'\n"
      << "mount -t tmpfs lab-stage " << shell_quoted(stage) << " || fail 'cannot make the staging folder'\n";
    for (std::size_t k = 0; k < keeps.size(); ++k) {
        const std::string staged = shell_quoted(stage + "/" + std::to_string(k));
        s << (keeps[k].directory ? "mkdir " : "touch ") << staged << " && mount --bind " << shell_quoted(keeps[k].path) << ' '
          << staged << " || fail " << shell_quoted("cannot stage " + keeps[k].path) << '\n';
    }
    // Everything read-only, the staged copies too; but /proc, which CUDA needs writable (a read-only
    // /proc makes cuInit fail), has only what could change the machine made read-only, as
    // bubblewrap does: the kernel's settings, the SysRq trigger, interrupts and buses.
    s << "for m in $(cut -d' ' -f5 /proc/self/mountinfo); do\n"
      << "  case \"$m\" in /proc|/proc/*) continue;; *\\\\*) fail \"a mount point with an escaped name: $m\";; esac\n"
      << "  mount -o remount,bind,ro \"$m\" || fail \"cannot make $m read-only\"\n"
      << "done\n"
      << "for p in sys sysrq-trigger irq bus fs; do\n"
      << "  [ -e /proc/$p ] || continue\n"
      << "  mount --bind /proc/$p /proc/$p && mount -o remount,bind,ro /proc/$p || fail \"cannot make /proc/$p read-only\"\n"
      << "done\n";
    for (const auto& w : l.writable)
        if (innermost(w).empty())
            // --rbind: what is mounted inside it (the staging folder, in a build tree) comes along.
            s << "mount --rbind " << shell_quoted(w) << ' ' << shell_quoted(w) << " && mount -o remount,bind,rw " << shell_quoted(w)
              << " || fail " << shell_quoted("cannot make " + w + " writable") << '\n';
    for (const auto& r : replaced) {
        const bool fresh = std::find(l.fresh.begin(), l.fresh.end(), r) != l.fresh.end() || r == "/dev";
        s << "mount -t tmpfs -o size=" << kFreshBytes << ",mode=" << (r == "/tmp" ? "1777" : "755") << " lab-" << (fresh ? "fresh " : "hidden ")
          << shell_quoted(r) << " || fail " << shell_quoted("cannot replace " + r) << '\n';
        for (std::size_t k = 0; k < keeps.size(); ++k) {
            if (innermost(keeps[k].path) != r) continue;
            const std::string path = shell_quoted(keeps[k].path), parent = shell_quoted(fs::path(keeps[k].path).parent_path().string());
            s << "mkdir -p " << (keeps[k].directory ? path : parent + " && touch " + path) << " && mount --bind "
              << shell_quoted(stage + "/" + std::to_string(k)) << ' ' << path
              << (keeps[k].writable ? " && mount -o remount,bind,rw " + path : std::string()) << " || fail "
              << shell_quoted("cannot see " + keeps[k].path + " again") << '\n';
        }
        if (r == "/dev")
            s << "ln -s /proc/self/fd /dev/fd && ln -s /proc/self/fd/0 /dev/stdin && ln -s /proc/self/fd/1 /dev/stdout"
                 " && ln -s /proc/self/fd/2 /dev/stderr && mkdir /dev/shm && mount -t tmpfs -o mode=1777 lab-shm /dev/shm"
                 " || fail 'cannot make /dev'\n";
        if (!fresh) s << "mount -o remount,ro " << shell_quoted(r) << " || fail " << shell_quoted("cannot make " + r + " read-only") << '\n';
    }
    // The hidden files come as arguments before the command (their count first), not in the script:
    // one argument may hold 128 KiB at most, and a deep build tree's few hundred paths are more.
    s << "hidden=$1; shift\n"
      << "while [ \"$hidden\" -gt 0 ]; do\n"
      << "  mount --bind " << shell_quoted(empty_file()) << " \"$1\" && mount -o remount,bind,ro \"$1\" || fail \"cannot hide $1\"\n"
      << "  shift; hidden=$((hidden - 1))\n"
      << "done\n";
    s << "umount -l " << shell_quoted(stage) << " || fail 'cannot remove the staging folder'\n"
      << "cd -- \"$PWD\" 2>/dev/null || cd /\n"
      // Not the namespace's first process, which the kernel spares the signals it does not handle
      // (SIGXCPU at the CPU limit): a child, whose end the script reports as 128 + the signal.
      << "setpriv --no-new-privs --bounding-set=-all --inh-caps=-all -- env -i";
    for (const auto& [name, value] : passed_environment()) s << ' ' << shell_quoted(name + "=" + value);
    s << " \"$@\" &\nwait $!\n";
    std::vector<std::string> w{lab::process::find_program("unshare"),
                               "--mount", "--net", "--ipc", "--uts", "--pid", "--fork", "--kill-child", "--mount-proc",
                               "--", "/bin/sh", "-c", s.str(), "lab-sandbox", std::to_string(l.hidden_files.size())};
    w.insert(w.end(), l.hidden_files.begin(), l.hidden_files.end());
    w.insert(w.end(), command.begin(), command.end());
    return w;
}

std::vector<std::string> wrap(Isolation kind, const std::vector<std::string>& command, const SandboxSpec& spec)
{
    switch (kind) {
    case Isolation::bubblewrap: return bwrap_command(command, spec);
    case Isolation::unshare: return unshare_command(command, spec);
    case Isolation::none: break;
    }
    return command;
}

// "" when `kind` can run a program here; else why not, with the first line it printed.
std::string try_isolation(Isolation kind)
{
    if (kind == Isolation::bubblewrap && bwrap().empty())
        return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap";
    if (kind == Isolation::unshare) {
        if (geteuid() != 0) return "the unshare fallback needs root (this is uid " + std::to_string(geteuid()) + ")";
        for (const char* tool : {"unshare", "setpriv"})
            if (lab::process::find_program(tool).empty())
                return std::string(tool) + " is not installed: apt-get install util-linux";
    }
    const std::string log = grading_build_dir() + "/sandbox-probe.log";
    lab::process::Options quiet;
    quiet.output = log;
    SandboxSpec spec;
    spec.gpu = false;
    const int status = lab::process::run(wrap(kind, {"/bin/true"}, spec), quiet);
    if (status == 0) return "";
    std::ifstream in(log);
    std::string first;
    std::getline(in, first);
    const std::string name = kind == Isolation::bubblewrap ? "bubblewrap" : "unshare";
    return name + " cannot make its sandbox here" + (first.empty() ? std::string() : ": " + first);
}

}  // namespace

const std::string& bwrap()
{
    static const std::string path = [] {
        if (const char* set = std::getenv("LAB_BWRAP"); set && *set) return std::string(set);
        if (access("/usr/bin/bwrap", X_OK) == 0) return std::string("/usr/bin/bwrap");
        return lab::process::find_program("bwrap");
    }();
    return path;
}

const IsolationChoice& isolation()
{
    static const IsolationChoice choice = [] {
        IsolationChoice c;
        const char* asked = std::getenv("LAB_ISOLATION");
        const std::string want = asked ? asked : "";
        if (want == "none") {
            c.kind = Isolation::none;
            c.name = "none";
            c.fallback = "LAB_ISOLATION=none was asked for";
            return c;
        }
        if (!want.empty() && want != "bubblewrap" && want != "unshare") {
            c.error = "LAB_ISOLATION=" + want + " is not one of bubblewrap, unshare, none";
            return c;
        }
        const std::string no_bwrap = want == "unshare" ? "LAB_ISOLATION=unshare was asked for" : try_isolation(Isolation::bubblewrap);
        if (no_bwrap.empty()) {
            c.kind = Isolation::bubblewrap;
            c.name = "bubblewrap";
            return c;
        }
        if (want == "bubblewrap") {
            c.error = no_bwrap;
            return c;
        }
        const std::string no_unshare = try_isolation(Isolation::unshare);
        if (no_unshare.empty()) {
            c.kind = Isolation::unshare;
            c.name = "unshare";
            c.fallback = no_bwrap;
            return c;
        }
        c.error = "no sandbox can be made on this machine, so no submission is run. " + no_bwrap + "; " + no_unshare +
                  (no_unshare.back() == '.' ? " " : ". ") + "Install bubblewrap (apt-get install bubblewrap) or grade as root; LAB_ISOLATION=none grades "
                  "without one (only for code you trust), and every report then says so.";
        return c;
    }();
    return choice;
}

void hide_in_sandbox(const std::string& path)
{
    std::lock_guard<std::mutex> lock(g_hidden_mutex);
    g_hidden_extra.push_back(absolute(path));
}

Sandbox::Sandbox(const std::vector<std::string>& command, const SandboxSpec& spec)
    : argv_(wrap(isolation().kind, command, spec)), limits_(spec.limits),
      cgroup_(std::make_unique<Cgroup>(CgroupLimits{spec.limits.processes, spec.limits.memory_bytes}))
{
}

std::unique_ptr<judge::Confinement> sandboxed_runner(const std::vector<std::string>& command, const std::string& dir,
                                                     const SandboxLimits& limits)
{
    SandboxSpec spec;
    spec.writable = {dir};
    spec.limits = limits;
    return std::make_unique<Sandbox>(command, spec);
}

lab::process::Options Sandbox::options(const std::string& log, bool append) const
{
    lab::process::Options options;
    options.output = log;
    options.append = append;
    options.group = lab::process::Options::Group::session;
    options.null_stdin = true;
    options.max_cpu_seconds = limits_.cpu_seconds;
    options.max_file_bytes = limits_.file_bytes;
    options.no_core_files = true;
    options.cgroups = cgroup_->folders();
    options.cpu_counted_elsewhere = cgroup_->counts_cpu();
    return options;
}

std::string Sandbox::limit_reached() const
{
    return cgroup_->limit_reached();
}

bool sandbox_not_made(const std::string& line)
{
    return line.rfind("bwrap: ", 0) == 0 || line.rfind(kUnshareComplaint, 0) == 0;
}

std::string isolation_summary(const SandboxLimits& limits)
{
    const IsolationChoice& c = isolation();
    std::string text;
    if (c.kind == Isolation::none) {
        text = "built and ran WITHOUT a sandbox (" + c.fallback + ")";
    } else {
        text = "built and ran in " +
               std::string(c.kind == Isolation::bubblewrap ? "a bubblewrap sandbox"
                                                           : "an unshare sandbox with every capability dropped (" +
                                                                 c.fallback + ")") +
               ": the files read-only but its own folder, the hidden cases, solutions, reports and home folders out of "
               "sight, no network, a clean environment";
    }
    const CgroupSupport& cg = cgroup_support();
    text += "; limits: " + std::to_string(limits.cpu_seconds) + " s of CPU per process, " +
            std::to_string(limits.file_bytes >> 20) + " MiB per file, " +
            (cg.processes.empty() ? std::to_string(limits.processes) + " processes and threads"
                                  : "processes not limited (" + cg.processes + ")") +
            ", " +
            (cg.memory.empty() ? std::to_string(limits.memory_bytes >> 20) + " MiB of memory"
                               : "memory not limited (" + cg.memory + ")");
    return text;
}

}  // namespace lab::grading
