// INSTRUCTOR SIDE. grade-all --slurm: the class as Slurm array jobs, round after round, each task
// grading its share with lab-grade grade-task; see README.md.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <thread>

#include "class_state.hpp"
#include "lab/json_text.hpp"
#include "lab/process.hpp"
#include "lab/text.hpp"

namespace lab::batch {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string quoted(const std::string& text)
{
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs a Slurm command; its output in `output`; its exit code.
int slurm(const std::vector<std::string>& args, std::string& output, const std::string& scratch)
{
    lab::process::Options options;
    options.output = scratch;
    options.search_path = true;
    options.null_stdin = true;
    const int code = lab::process::run(args, options);
    output = lab::read_file(scratch);
    while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
    return code;
}

std::string job_script(const BatchOptions& options, const std::string& round, std::size_t tasks)
{
    const SlurmOptions& s = options.slurm;
    const std::string out = fs::absolute(options.out).string();
    std::string text = "#!/bin/bash\n# Written by lab-grade grade-all --slurm: one array task per " +
                       std::to_string(s.per_task) + " submission(s) of " + round + ".json.\n";
    text += "#SBATCH --job-name=lab-grade-all\n#SBATCH --array=0-" + std::to_string(tasks - 1) +
            (s.max_running > 0 ? "%" + std::to_string(s.max_running) : "") + "\n";
    text += "#SBATCH --output=" + out + "/slurm/" + round + "-task-%a.log\n#SBATCH --requeue\n";
    if (!s.partition.empty()) text += "#SBATCH --partition=" + s.partition + "\n";
    if (!s.gres.empty()) text += "#SBATCH --gres=" + s.gres + "\n";
    if (!s.time.empty()) text += "#SBATCH --time=" + s.time + "\n";
    if (!s.account.empty()) text += "#SBATCH --account=" + s.account + "\n";
    for (const std::string& arg : s.sbatch_args) {
        if (arg.find('\n') != std::string::npos) throw std::runtime_error("--sbatch-arg " + arg + ": one line only");
        text += "#SBATCH " + arg + "\n";
    }
    text += "set -euo pipefail\n";
    std::string grader = quoted(options.grader);
    if (!s.node_tree.empty()) {
        // A build tree of the kit on the node's own disk, one per task running there at once (the
        // first free slot, locked for the task's life), configured and built the first time.
        const std::string args_file = fs::path(options.grader).parent_path().parent_path().string() + "/grading/node-tree.args";
        text += "base=" + quoted(s.node_tree) + "\nmkdir -p \"$(dirname \"$base\")\"\n"
                "for slot in $(seq 0 63); do exec 9>\"$base-$slot.lock\"; flock -n 9 && break; done\n"
                "tree=\"$base-$slot\"\n"
                "if [[ ! -x \"$tree/bin/lab-grade\" ]]; then\n"
                "  mapfile -t args < " + quoted(args_file) + "\n"
                "  cmake \"${args[@]}\" -B \"$tree\" > \"$tree.configure.log\" 2>&1 || { cat \"$tree.configure.log\"; exit 1; }\n"
                "  cmake --build \"$tree\" --target lab-grade >> \"$tree.configure.log\" 2>&1 || { cat \"$tree.configure.log\"; exit 1; }\n"
                "fi\n";
        grader = "\"$tree/bin/lab-grade\"";
    }
    text += "exec " + grader + " grade-task " + quoted(out) + " --round " + quoted(out + "/slurm/" + round + ".json") +
            " --task \"$SLURM_ARRAY_TASK_ID\" --per-task " + std::to_string(s.per_task) + " --jobs " +
            std::to_string(options.jobs) + "\n";
    return text;
}

}  // namespace

int grade_on_slurm(const BatchOptions& options, const ClassState& state)
{
    const SlurmOptions& s = options.slurm;
    for (const std::string tool : {"sbatch", "squeue", "scancel"})
        if (lab::process::find_program(tool).empty())
            throw std::runtime_error(std::string("--slurm needs Slurm's ") + tool +
                                     " on PATH (Debian: apt-get install slurm-client), on a machine that can submit to the cluster");
    const std::string slurm_dir = options.out + "/slurm";
    fs::create_directories(slurm_dir);
    std::map<std::string, std::string> why_not;
    std::set<std::string> decided;  // not graded, and lab-grade said why (a broken archive)
    for (int attempt = 0; attempt <= s.retries && !stop_requested; ++attempt) {
        std::size_t already = 0;
        std::vector<Student> pending = to_grade(options, state, already);
        pending.erase(std::remove_if(pending.begin(), pending.end(), [&](const Student& p) { return decided.count(p.id) > 0; }),
                      pending.end());
        if (pending.empty()) break;
        const std::size_t tasks = (pending.size() + s.per_task - 1) / s.per_task;
        int round_number = 1;
        while (fs::exists(slurm_dir + "/round-" + std::to_string(round_number) + ".json")) ++round_number;
        const std::string round = "round-" + std::to_string(round_number);
        json ids = json::array();
        for (const Student& p : pending) {
            ids.push_back(p.id);
            // A failure recorded by an earlier run is not this round's: its task writes a new one.
            fs::remove_all(failed_dir(options.out, p.id));
        }
        write_text(slurm_dir + "/" + round + ".json", lab::json_text(ids) + "\n");
        write_text(slurm_dir + "/" + round + ".sh", job_script(options, round, tasks));
        std::string job;
        if (slurm({"sbatch", "--parsable", slurm_dir + "/" + round + ".sh"}, job, slurm_dir + "/" + round + ".sbatch.log") != 0)
            throw std::runtime_error("sbatch refused the job: " + job + " (the script: " + slurm_dir + "/" + round + ".sh)");
        job = job.substr(0, job.find(';'));
        std::printf("grade-all: %zu students; %zu graded already; Slurm job %s: %zu task(s) for the %zu to grade (%s)\n",
                    state.students.size(), already, job.c_str(), tasks, pending.size(), round.c_str());
        std::fflush(stdout);
        ProgressLine progress(pending.size());
        std::set<std::string> shown;
        const auto started = Clock::now();
        for (;;) {
            std::string queued;
            const int code = slurm({"squeue", "-h", "-j", job, "-o", "%i %T"}, queued, slurm_dir + "/" + round + ".squeue.log");
            for (const Student& p : pending) {
                if (shown.count(p.id)) continue;
                const bool graded = is_graded(options.out, state, p);
                if (!graded && !fs::exists(failed_dir(options.out, p.id) + "/batch.json")) continue;
                shown.insert(p.id);
                Graded g;
                std::string host = "?";
                try {
                    const std::string dir = graded ? graded_dir(options.out, p.id) : failed_dir(options.out, p.id);
                    const json batch = json::parse(lab::read_file(dir + "/batch.json"));
                    g.ok = graded;
                    g.seconds = batch.at("seconds");
                    host = batch.at("host");
                    if (!graded) g.why = why_not_graded(options.out, p.id);
                    if (graded) {
                        const json grade = json::parse(lab::read_file(record_in(dir)));
                        g.score = grade.at("score");
                        g.max = grade.at("max");
                    }
                } catch (const std::exception& e) {
                    g.why = e.what();
                }
                progress.finished(shown.size(), p.id + ": " + describe(g) + " on " + host,
                                  std::chrono::duration<double>(Clock::now() - started).count() / static_cast<double>(shown.size()));
            }
            // squeue forgets a finished job (it exits non-zero, or lists nothing).
            if (code != 0 || queued.empty() || stop_requested) break;
            for (int tick = 0; tick < static_cast<int>(s.poll_seconds * 10) && !stop_requested; ++tick)
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (stop_requested) {
            std::string said;
            slurm({"scancel", job}, said, slurm_dir + "/" + round + ".scancel.log");
            std::printf("grade-all: stopped; Slurm job %s cancelled\n", job.c_str());
            break;
        }
        std::size_t done = 0, again = 0;
        for (std::size_t k = 0; k < pending.size(); ++k) {
            const Student& p = pending[k];
            if (is_graded(options.out, state, p)) {
                ++done;
                continue;
            }
            if (!fs::exists(failed_dir(options.out, p.id) + "/batch.json") && ++again)
                why_not[p.id] = "its Slurm task (job " + job + ", task " + std::to_string(k / s.per_task) +
                                ") ended without a grade: see slurm/" + round + "-task-" +
                                std::to_string(k / s.per_task) + ".log and sacct -j " + job;
            else
                decided.insert(p.id);  // lab-grade said why: another round would say it again
        }
        std::printf("grade-all: Slurm job %s graded %zu of %zu%s\n", job.c_str(), done, pending.size(),
                    again > 0 && attempt < s.retries ? "; submitting again those whose task ended without a grade" : "");
    }
    for (const Student& st : state.students)
        if (is_graded(options.out, state, st)) why_not.erase(st.id);
    return finish(options.out, state, why_not);
}

}  // namespace lab::batch
