// The lessons (grader/trusted/lessons.hpp): the numbers of a measurement, the measurements no kernel
// can have made, the rubric's technique criteria and how they score.
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "lab/lesson_numbers.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "lessons.hpp"
#include "as_it_is.hpp"
#include "builder.hpp"
#include "categories.hpp"
#include "plan.hpp"
#include "result.hpp"
#include "rubric.hpp"
#include "sandbox.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lab::grading;
using nlohmann::json;

json counts(double instructions, double lanes, double warps, double shared_requests, double shared_wavefronts,
            double global_requests, double global_sectors, double least_sectors, double read, double barriers,
            double remote = 0)
{
    return {{"instructions", instructions},   {"lanes", lanes},
            {"warps", warps},                 {"shared_requests", shared_requests},
            {"shared_wavefronts", shared_wavefronts},
            {"global_requests", global_requests}, {"global_sectors", global_sectors},
            {"global_least_sectors", least_sectors}, {"global_read", read},
            {"barriers", barriers},            {"distributed_requests", remote}};
}

// Two launches as lab-explain writes them: 2^20 ints in 4096 blocks of 256, then one block.
json measurement()
{
    return {{"rung", "03_sequential"},
            {"n", 1 << 20},
            {"least_read", 4 << 20},
            {"instrumented", true},
            {"error", ""},
            {"launches",
             {{{"grid", 4096}, {"block", 256}, {"total", counts(1000, 24000, 8192, 400, 800, 500, 2000, 2000, 4 << 20, 36864, 8194)}},
              {{"grid", 1}, {"block", 256}, {"total", counts(100, 3200, 8, 0, 0, 100, 400, 400, 16384, 9)}}}}};
}

TEST(Lessons, TheNumbersOfAMeasurement)
{
    const auto n = lab::measure_lessons(measurement());
    EXPECT_DOUBLE_EQ(n.at("active_lanes"), 27200.0 / 1100);
    EXPECT_DOUBLE_EQ(n.at("warps_per_block"), 8200.0 / 4097);
    EXPECT_DOUBLE_EQ(n.at("wavefronts_per_request"), 2.0);
    EXPECT_DOUBLE_EQ(n.at("sectors_per_request"), 4.0);
    EXPECT_DOUBLE_EQ(n.at("sectors_over_least"), 1.0);
    EXPECT_DOUBLE_EQ(n.at("elements_per_thread"), 1.0);  // the first launch's
    EXPECT_DOUBLE_EQ(n.at("barriers_per_block"), 36873.0 / 4097);
    EXPECT_DOUBLE_EQ(n.at("launches"), 2);
    EXPECT_DOUBLE_EQ(n.at("read_over_least"), ((4 << 20) + 16384.0) / (4 << 20));
    EXPECT_DOUBLE_EQ(n.at("remote_reads_per_block"), 8194.0 / 4097);
    EXPECT_EQ(n.size(), lab::lesson_numbers().size());
}

// What no measurement can hold is refused, never turned into numbers: a kernel's process writes the
// file, and a forged one must not earn technique points.
TEST(Lessons, CountsNoMeasurementCanHaveMadeAreRefused)
{
    const auto refused = [](json m) {
        try {
            lab::measure_lessons(m);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(refused(measurement()), "accepted");
    json m = measurement();
    m["instrumented"] = false;
    EXPECT_NE(refused(m).find("nothing of the kernel was measured"), std::string::npos);
    m = measurement();
    m["launches"][0]["total"]["lanes"] = 32 * 1100 + 1;  // more than 32 lanes per instruction
    EXPECT_NE(refused(m).find("more than 32 lanes"), std::string::npos);
    m = measurement();
    m["launches"][0]["total"]["shared_wavefronts"] = 100;  // fewer wavefronts than requests
    EXPECT_NE(refused(m).find("wavefronts"), std::string::npos);
    m = measurement();
    m["launches"][0]["total"]["global_sectors"] = 100;  // fewer sectors than the bytes need
    EXPECT_NE(refused(m).find("sectors"), std::string::npos);
    m = measurement();
    m["launches"][0]["total"].erase("barriers");
    EXPECT_NE(refused(m).find("no count \"barriers\""), std::string::npos);
    m = measurement();
    m["launches"][0]["total"]["warps"] = -1;
    EXPECT_NE(refused(m).find("not a count"), std::string::npos);
    m = measurement();
    m["launches"] = json::array();
    EXPECT_NE(refused(m).find("no kernel launch"), std::string::npos);
    m = measurement();
    m["launches"][1]["grid"] = 0;
    EXPECT_NE(refused(m).find("no blocks"), std::string::npos);
    EXPECT_NE(refused(json::array()).find("not a JSON object"), std::string::npos);
}

fs::path scratch(const std::string& name)
{
    const fs::path dir = fs::temp_directory_path() / ("lab-lessons-test-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string rubric_refusal(const std::string& text)
{
    const fs::path dir = scratch("rubric");
    std::ofstream(dir / "r.toml", std::ios::trunc) << text;
    try {
        load_rubric((dir / "r.toml").string());
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "accepted";
}

TEST(Lessons, TheRubricsTechniqueCriteriaAreCheckedWithTheirLine)
{
    const std::string criterion = "[[lessons.technique]]\nrung = \"03_sequential\"\nmetric = \"wavefronts_per_request\"\n";
    EXPECT_EQ(rubric_refusal(criterion + "at_most = 1\n"), "accepted");
    EXPECT_NE(rubric_refusal(criterion).find("key lessons.technique.at_most: is missing"), std::string::npos);
    EXPECT_NE(rubric_refusal("[[lessons.technique]]\nrung = \"03_sequential\"\nmetric = \"bank_conflicts\"\nat_most = 1\n")
                  .find("r.toml:3: key lessons.technique.metric: must be one of"),
              std::string::npos);
    EXPECT_NE(rubric_refusal("[[lessons.technique]]\nrung = \"03_sequencial\"\nmetric = \"launches\"\nat_most = 1\n")
                  .find("r.toml:2: key lessons.technique.rung: no such rung"),
              std::string::npos);
    EXPECT_NE(rubric_refusal(criterion + "at_most = 1\nweight = 2\n").find("r.toml:5: key lessons.technique.weight: not a key"),
              std::string::npos);
    EXPECT_NE(rubric_refusal("[lessons]\nmeasure = false\n" + criterion + "at_most = 1\n")
                  .find("key lessons.technique: grades what lessons.measure = false leaves unmeasured"),
              std::string::npos);
    EXPECT_NE(rubric_refusal("[lessons]\nmeasure = \"no\"\n").find("r.toml:2: key lessons.measure: must be true or false"),
              std::string::npos);
    EXPECT_NE(rubric_refusal("[lessons]\ntechnique = 3\n").find("key lessons.technique: must be a list of criteria"),
              std::string::npos);
    const Rubric defaults = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    EXPECT_TRUE(defaults.lessons.measure);
    EXPECT_TRUE(defaults.lessons.technique.empty());  // no points for technique unless an instructor asks
}

TEST(Lessons, TechniqueEarnsWithinItsBoundOnlyOnceEveryVisibleCasePasses)
{
    const fs::path dir = scratch("technique");
    std::ofstream(dir / "r.toml", std::ios::trunc)
        << "[[lessons.technique]]\nrung = \"03_sequential\"\nmetric = \"wavefronts_per_request\"\nat_most = 1.0\npoints = 0.5\n"
           "says = \"no bank conflicts\"\n"
           "[[lessons.technique]]\nrung = \"03_sequential\"\nmetric = \"barriers_per_block\"\nat_most = 1.0\nof_reference = true\n"
           "points = 0.25\n"
           "[[lessons.technique]]\nrung = \"07_coarsening\"\nmetric = \"elements_per_thread\"\nat_least = 8\n";
    const Rubric rubric = load_rubric((dir / "r.toml").string());
    ASSERT_EQ(rubric.lessons.technique.size(), 3u);
    RungResult r;
    r.id = "03_sequential";
    r.submitted = r.built = true;
    CaseResult pass;
    pass.status = "passed";
    pass.group = "edges";
    r.cases = {pass};
    const auto technique = [&]() { return r.part("technique") ? *r.part("technique") : Part{}; };
    // Not measured: nothing earned, and the report says why.
    r.lessons.note = "not measured: the file did not build for the CPU backend's measurement";
    score_rung(r, rubric, false);
    EXPECT_EQ(technique().max, 0.75);
    EXPECT_EQ(technique().score, 0);
    EXPECT_NE(technique().note.find("did not build for the CPU backend"), std::string::npos);
    // Both met: 1 wavefront a request, and as many barriers as the reference.
    r.lessons.yours = {{"wavefronts_per_request", 1.0}, {"barriers_per_block", 9.0}};
    r.lessons.reference = {{"wavefronts_per_request", 1.0}, {"barriers_per_block", 9.0}};
    score_rung(r, rubric, false);
    EXPECT_EQ(technique().score, 0.75);
    EXPECT_EQ(r.score(), rubric.points.visible + 0.75);
    // Bank conflicts: that criterion is missed, with the number and the bound; the other stands.
    r.lessons.yours["wavefronts_per_request"] = 2.31;
    score_rung(r, rubric, false);
    EXPECT_EQ(technique().score, 0.25);
    EXPECT_NE(technique().note.find("missed: no bank conflicts (wavefronts_per_request 2.31, at most 1.00)"), std::string::npos)
        << technique().note;
    // A barrier more than the reference, whose number sets the bound.
    r.lessons.yours["wavefronts_per_request"] = 1.0;
    r.lessons.yours["barriers_per_block"] = 10.0;
    score_rung(r, rubric, false);
    EXPECT_EQ(technique().score, 0.5);
    EXPECT_NE(technique().note.find("x the reference's 9.0"), std::string::npos) << technique().note;
    // Within every bound, but a visible case fails: nothing earned.
    r.lessons.yours["barriers_per_block"] = 9.0;
    CaseResult fail = pass;
    fail.status = "failed";
    r.cases.push_back(fail);
    score_rung(r, rubric, false);
    EXPECT_EQ(technique().score, 0);
    EXPECT_NE(technique().note.find("once every visible case passes"), std::string::npos);
    // A rung the rubric names no criterion for has no technique part.
    r.id = "05_unroll_last_warp";
    score_rung(r, rubric, false);
    EXPECT_EQ(technique().name, "");
}

// The reference's numbers are measured once per build of its explain program, and again when the
// program changes or the kept copy cannot be read: a stand-in program that counts its runs.
TEST(Lessons, TheReferencesNumbersAreMeasuredOncePerBuildOfItsProgram)
{
    const fs::path dir = fs::temp_directory_path() / ("lessons-kept-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "explain");
    const std::string program = (dir / "explain" / "lab-explain-03_sequential").string(), runs = (dir / "runs").string();
    const auto write_program = [&](const std::string& comment) {
        std::ofstream(program) << "#!/bin/sh\n# " << comment << "\necho run >> " << runs << "\ncat > \"$2\" <<'EOF'\n"
                               << measurement().dump() << "\nEOF\n";
        fs::permissions(program, fs::perms::owner_all);
    };
    write_program("first build");
    Limits limits;
    limits.confine = [](const std::vector<std::string>& command, const std::string&, const RunnerLimits&) {
        return std::make_unique<lab::judge::AsItIs>(command);
    };
    const lab::RungInfo& rung = lab::Registry::kit().get("03_sequential");
    const auto measured = [&] {
        std::string why;
        const auto numbers = reference_numbers(rung, program, (dir / "work").string(), limits, why);
        EXPECT_EQ(why, "");
        return numbers;
    };
    const auto count_runs = [&] {
        const std::string text = lab::read_file(runs);
        return std::count(text.begin(), text.end(), '\n');
    };
    const auto first = measured();
    ASSERT_FALSE(first.empty());
    EXPECT_EQ(first, lab::measure_lessons(measurement()));
    EXPECT_EQ(measured(), first);
    EXPECT_EQ(measured(), first);
    EXPECT_EQ(count_runs(), 1) << "the same program was run again for the same numbers";
    write_program("rebuilt");
    EXPECT_EQ(measured(), first);
    EXPECT_EQ(count_runs(), 2) << "a rebuilt program's numbers were taken from the earlier build's";
    for (const auto& entry : fs::directory_iterator(dir / "explain"))
        if (entry.path().string() != program) std::ofstream(entry.path()) << "{not json";
    EXPECT_EQ(measured(), first);
    EXPECT_EQ(count_runs(), 3) << "an unreadable kept copy was used";
    EXPECT_EQ(measured(), first);
    EXPECT_EQ(count_runs(), 3);
    fs::remove_all(dir);
}

// A measurement runs the submission's kernel on the CPU backend, every core its own: one that does
// a thousand times the rung's work (a stride of a block, not the grid's) took 246 s of a core on an
// H200's host. The rubric's [lessons] cpu_seconds stops it, and the note says why.
TEST(Lessons, AMeasurementStopsAtTheRubricsCpuBudget)
{
    if (!isolation().error.empty() || isolation().kind == Isolation::none) GTEST_SKIP() << "no sandbox here: " << isolation().error;
    // The program where the build tree keeps its programs (the sandbox hides the rest of the tree but
    // the run's own folder).
    const std::string program = grading_build_dir() + "/bin/lab-explain-budget-test-" + std::to_string(::getpid());
    const std::string work = grading_build_dir() + "/grading/lessons-budget-test-" + std::to_string(::getpid());
    fs::remove_all(work);
    std::ofstream(program) << "#!/bin/sh\nwhile :; do :; done\n";
    fs::permissions(program, fs::perms::owner_all);
    Rubric rubric = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    EXPECT_EQ(rubric.lessons.cpu_seconds, 30) << "the kit's rubric";
    rubric.lessons.cpu_seconds = 1;
    Limits limits;
    limits.confine = sandboxed_runner;
    limits.case_seconds = 20;
    limits.runner.cpu_seconds = 3600;  // the rubric's [limits], a case's
    Lessons lessons(rubric, {"03_sequential"}, [&] { return Explainers{{{"03_sequential", program}}, work, ""}; }, limits, 1, work);
    LessonResult l;
    const double seconds = lessons.measure("03_sequential", l);
    EXPECT_FALSE(l.measured());
    EXPECT_NE(l.note.find("more than 1 s of a core"), std::string::npos) << "note: " << l.note;
    EXPECT_LT(seconds, 10) << "the measurement went on past its budget";
    fs::remove(program);
    if (!HasFailure()) fs::remove_all(work);  // (else its runner.log, left to look at)
}

}  // namespace
