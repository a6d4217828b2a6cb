// Kit tests of the grader's trusted parts that need no kernel: intake, the text screen, integrity, the rubric.
// (policy_test.cpp has the rest; the corpus, grader/corpus/, grades whole submissions.)
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "elf.hpp"
#include "intake.hpp"
#include "integrity.hpp"
#include "builder.hpp"
#include "judge.hpp"
#include "lab/device.hpp"
#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "categories.hpp"
#include "plan.hpp"
#include "reuse.hpp"
#include "rubric.hpp"
#include "sanitizer.hpp"
#include "screen.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lab::grading;

fs::path scratch(const std::string& name)
{
    const fs::path dir = fs::temp_directory_path() / ("lab-grader-test-" + std::to_string(getpid())) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

struct Entry {
    std::string path;
    int type = AE_IFREG;
    std::string contents;
    std::string link;
};

// A .tar.gz (or .zip) holding `entries`, written with libarchive.
std::string archive_of(const fs::path& dir, const std::string& name, const std::vector<Entry>& entries, bool zip = false)
{
    const std::string file = (dir / name).string();
    archive* a = archive_write_new();
    if (zip) archive_write_set_format_zip(a);
    else archive_write_set_format_pax_restricted(a), archive_write_add_filter_gzip(a);
    archive_write_open_filename(a, file.c_str());
    for (const Entry& e : entries) {
        archive_entry* entry = archive_entry_new();
        archive_entry_set_pathname(entry, e.path.c_str());
        archive_entry_set_filetype(entry, static_cast<unsigned>(e.type));
        archive_entry_set_perm(entry, 0644);
        if (!e.link.empty()) archive_entry_set_symlink(entry, e.link.c_str());
        archive_entry_set_size(entry, e.type == AE_IFREG ? static_cast<la_int64_t>(e.contents.size()) : 0);
        archive_write_header(a, entry);
        if (e.type == AE_IFREG) archive_write_data(a, e.contents.data(), e.contents.size());
        archive_entry_free(entry);
    }
    archive_write_close(a);
    archive_write_free(a);
    return file;
}

bool refused(const Intake& intake, const std::string& path)
{
    for (const auto& r : intake.refused)
        if (r.rfind(path + ":", 0) == 0) return true;
    return false;
}

TEST(Intake, TakesOnlyTheRungFilesOfATarball)
{
    const auto dir = scratch("tarball");
    const std::string file = archive_of(dir, "s.tar.gz",
                                        {{"kit/exercises/03_sequential.cu", AE_IFREG, "// mine\n"},
                                         {"kit/exercises/99_nothing.cu", AE_IFREG, "x"},
                                         {"kit/tests/cases.json", AE_IFREG, "{}"},
                                         {"kit/exercises/01_interleaved.cu", AE_IFLNK, "", "/etc/passwd"},
                                         {"../exercises/02_strided_index.cu", AE_IFREG, "x"},
                                         {"/exercises/04_first_add.cu", AE_IFREG, "x"},
                                         {"kit/exercises/05_unroll_last_warp.cu", AE_IFCHR, ""},
                                         {"exercises/06_complete_unroll.cu", AE_IFREG, std::string(300 * 1024, 'x')}});
    const Intake intake = take_in(file);
    ASSERT_EQ(intake.files.size(), 1u);
    EXPECT_EQ(intake.files.at("03_sequential"), "// mine\n");
    EXPECT_TRUE(refused(intake, "kit/exercises/01_interleaved.cu"));
    EXPECT_TRUE(refused(intake, "../exercises/02_strided_index.cu"));
    EXPECT_TRUE(refused(intake, "/exercises/04_first_add.cu"));
    EXPECT_TRUE(refused(intake, "kit/exercises/05_unroll_last_warp.cu"));
    EXPECT_TRUE(refused(intake, "exercises/06_complete_unroll.cu"));
    EXPECT_NE(std::find(intake.ignored.begin(), intake.ignored.end(), "kit/tests/cases.json"), intake.ignored.end());
}

TEST(Intake, TakesAZipAndADirectoryAlike)
{
    const auto dir = scratch("zip");
    const Intake zipped = take_in(archive_of(dir, "s.zip", {{"exercises/07_coarsening.cu", AE_IFREG, "// seven\n"}}, true));
    ASSERT_EQ(zipped.files.count("07_coarsening"), 1u);
    fs::create_directories(dir / "tree/exercises");
    fs::create_directories(dir / "tree/.git");
    std::ofstream(dir / "tree/exercises/07_coarsening.cu") << "// seven\n";
    fs::create_symlink("/etc/passwd", dir / "tree/exercises/08_warp_shuffle.cu");
    const Intake tree = take_in((dir / "tree").string());
    EXPECT_EQ(tree.files, zipped.files);
    EXPECT_TRUE(refused(tree, "exercises/08_warp_shuffle.cu"));
}

TEST(Intake, SaysWhatToGiveWhenTheSubmissionIsNoneOfTheKinds)
{
    const auto dir = scratch("odd");
    std::ofstream(dir / "s.rar") << "x";
    EXPECT_THROW(take_in((dir / "s.rar").string()), std::runtime_error);
    EXPECT_THROW(take_in((dir / "missing").string()), std::runtime_error);
}

TEST(Screen, PassesTheReferenceSolutions)
{
    for (const auto& entry : fs::directory_iterator(fs::path(LAB_SOURCE_DIR) / "solutions")) {
        std::ifstream in(entry.path());
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_TRUE(screen_source(text).empty()) << entry.path() << ": " << screen_source(text).front();
    }
}

// Each text's first problem, as the screen says it, starts with the expected words.
void expect_first_problems(const std::vector<std::pair<std::string, std::string>>& cases)
{
    for (const auto& [text, expected] : cases) {
        const auto problems = screen_source(text);
        ASSERT_FALSE(problems.empty()) << text;
        EXPECT_EQ(problems.front().rfind(expected, 0), 0u) << text << "\n" << problems.front();
    }
}

TEST(Screen, RefusesWhatReachesIntoTheKit)
{
    const std::vector<std::pair<std::string, std::string>> cases{
        {"namespace lab {\nvoid f();\n}\n", "line 1: reopens namespace lab"},
        {"template <>\nlab::Verdict lab::check_output<float>(int);\n", "line 1: specialises"},
        {"#include \"lab/kernel.hpp\"\n#undef LAB_RUNG_NS\n", "line 2: #undef"},
        {"# define cudaDeviceSynchronize() cudaSuccess\n", "line 1: #define"},
        {"__attribute__((constructor)) static void early() {}\n", "line 1: code that runs before"},
        {"static auto f = std::fopen(\"x\", \"w\");\n", "line 1: touches files"},
        {"#include \"../tests/cases.json\"\n", "line 1: includes a file"},
        {"int x;\n  #  ifdef __CUDA_ARCH__\n", "line 2: conditional compilation"},
        {"namespace std {\ninline void f() {}\n}\n", "line 1: reopens a library's namespace"},
        {"template <>\ninline float* std::vector<float>::data() noexcept { return nullptr; }\n", "line 1: specialises"},
    };
    expect_first_problems(cases);
    // Comments and strings neither hide nor fake a construct.
    EXPECT_TRUE(screen_source("// namespace lab {\nconst char* s = \"namespace lab\";\n").empty());
    EXPECT_FALSE(screen_source("/* x */ namespace /* y */ lab {}\n").empty());
}

// The screen reads the text as the compiler does: a line marker would make the integrity checks take
// the file's own lines for a system header's, and a directive or name spelled in pieces, after a raw
// string or with a digraph is the same directive or name.
TEST(Screen, ReadsTheFileAsTheCompilerDoes)
{
    const std::vector<std::pair<std::string, std::string>> cases{
        {"int x;\n# 1 \"/usr/include/stdio.h\" 3\n", "line 2: a line marker"},
        {"int x;\n#line 7 \"/usr/include/stdio.h\"\n", "line 2: a line marker"},
        {"int x;\n%:line 7\n", "line 2: a line marker"},
        {"int x;\n  %: if 1\n", "line 2: conditional compilation"},
        {"int x;\n#i\\\nf 1\n", "line 2: conditional compilation"},
        {"int x;\n#\\  \nline 3\n", "line 2: a line marker"},
        {"int a = 1;\nnamespace l\\\nab {}\n", "line 2: reopens namespace lab"},
        {"const char* s = R\"x( \" )x\";\n#if 1\n#endif\n", "line 2: conditional compilation"},
        {"const char* s = R\"(\n\")\";\n# 3 \"/usr/include/stdio.h\" 3\n", "line 3: a line marker"},
        {"int n = 1'000;\n#undef X\n", "line 2: #undef"},
        {"int n = 0x1'F, m = 2;\n/* ' */ namespace lab {}\n", "line 2: reopens namespace lab"},
    };
    expect_first_problems(cases);
    // ... and what only looks like one is none.
    EXPECT_TRUE(screen_source("const char* s = R\"x(#if 1\nnamespace lab {)x\";\nchar c = u8'a';\nint n = 1'000'000;\n").empty());
}

// The preprocessed text the integrity checks read: the file's own lines (by the compiler's line
// markers) after every macro, and the headers it brought in.
TEST(Integrity, ReadsTheFilesOwnLinesAfterPreprocessing)
{
    lab::RungInfo rung = lab::Registry::kit().get("07");
    CompiledRung compiled;
    compiled.student_file = "/build/grading/submission/07_coarsening.cu";
    compiled.shown_as = "exercises/07_coarsening.cu";
    const std::string text =
        "# 1 \"/kit/harness/src/rung_glue.cu\"\n"
        "# 1 \"/usr/local/cuda/include/cuda_runtime.h\" 1\n"
        "# 2 \"/kit/harness/src/rung_glue.cu\" 2\n"
        "int atomicAdd_is_fine_here;\n"
        "# 1 \"/build/grading/submission/07_coarsening.cu\" 1\n"
        "\n"
        "# 4 \"/build/grading/submission/07_coarsening.cu\"\n"
        "namespace ex07 {\n"
        "# 1 \"/usr/local/cuda/include/cub/block/block_reduce.cuh\" 1\n"
        "namespace cub { int x; }\n"
        "# 6 \"/build/grading/submission/07_coarsening.cu\" 2\n"
        "template <typename T> __attribute__((global)) void reduce(const T* in, T* out, unsigned long n) {\n"
        "    atomicAdd(out, in[0]); __attribute__((used, section(\".init_array\"))) static int y;\n"
        "}\n"
        "}\n"
        "namespace lab { }\n";
    std::vector<std::string> found;
    for (const Finding& f : check_preprocessed(rung, text, compiled)) found.push_back(f.text());
    const std::vector<std::string> expected{
        "exercises/07_coarsening.cu:5: [libraries] includes /usr/local/cuda/include/cub/block/block_reduce.cuh, which rung "
        "07_coarsening may not use",
        "exercises/07_coarsening.cu:10: [source] after preprocessing, reopens namespace lab, the kit's own: a kernel file "
        "may use the kit, not add to it",
        "exercises/07_coarsening.cu:7: [source] the attribute used places or names code for the linker: a kernel file "
        "has no use for it",
        "exercises/07_coarsening.cu:7: [atomics] uses an atomic (atomicAdd), which rung 07_coarsening may not use",
    };
    EXPECT_EQ(found, expected);
    // A rung that forbids nothing is told only the rules for every file.
    rung.forbids.clear();
    EXPECT_EQ(check_preprocessed(rung, text, compiled).size(), 2u);
}

// Rung 11's ticket rule in the PTX: a ticket (inc, or add of one, literal or in a register, on a 32- or 64-bit counter)
// needs a GPU-scope fence since the function's last ticket; the int atomic scheme's add of a register
// is not a ticket; each function starts unfenced.
TEST(Integrity, AFenceBeforeEveryTicketInThePtx)
{
    const lab::RungInfo& rung = lab::Registry::kit().get("11");
    ASSERT_TRUE(rung.ticket_fence);
    const auto dir = scratch("ptx");
    const auto findings = [&](const std::string& body) {
        std::ofstream(dir / "k.ptx", std::ios::trunc) << body;
        CompiledRung compiled;
        compiled.shown_as = "exercises/11_single_pass.cu";
        compiled.ptx = {(dir / "k.ptx").string()};
        std::vector<std::string> rules;
        for (const Finding& f : check_integrity(rung, compiled)) rules.push_back(f.rule);
        return rules;
    };
    const std::vector<std::string> none, refused{"ticket-fence"};
    const std::string entry = ".visible .entry _ZN4ex1113reduce_ticketIiEEvPKT_mPS1_PjS4_(\n";
    EXPECT_EQ(findings(entry + "\tst.global.u32 [%rd1], %r1;\n\tmembar.gl;\n\tatom.global.add.u32 \t%r3, [%rd3], 1;\n"), none);
    EXPECT_EQ(findings(entry + "\tfence.acq_rel.gpu;\n\tatom.global.inc.u32 \t%r6, [%rd3], %r5;\n"), none);
    EXPECT_EQ(findings(entry + "\tst.global.u32 [%rd1], %r1;\n\tatom.global.add.u32 \t%r3, [%rd3], 1;\n"), refused);
    EXPECT_EQ(findings(entry + "\tatom.global.inc.u32 \t%r6, [%rd3], %r5;\n"), refused);
    // A fence of the block's scope only is not enough; one fence does not cover two tickets.
    EXPECT_EQ(findings(entry + "\tmembar.cta;\n\tatom.global.add.u32 \t%r3, [%rd3], 1;\n"), refused);
    EXPECT_EQ(findings(entry + "\tmembar.gl;\n\tatom.global.add.u32 %r3, [%rd3], 1;\n\tatom.global.add.u32 %r4, [%rd3], 1;\n"),
              refused);
    // The atomic scheme: a block's sum added to the result, with no fence, is no ticket.
    EXPECT_EQ(findings(entry + "\tatom.global.add.u32 \t%r125, [%rd59], %r133;\n\tatom.global.add.f32 %f1, [%rd1], %f2;\n"),
              none);
    // A fence in one function does not cover the next one's ticket.
    EXPECT_EQ(findings(entry + "\tmembar.gl;\n}\n.visible .entry _ZN4ex114nextEv(\n\tatom.global.add.u32 %r1, [%rd1], 1;\n"),
              refused);
    // The store must come before the fence: a fence, then the partial, then the ticket is refused.
    EXPECT_EQ(findings(entry + "\tmembar.gl;\n\tst.global.u32 [%rd1], %r1;\n\tatom.global.add.u32 %r3, [%rd3], 1;\n"),
              refused);
    EXPECT_EQ(findings(entry + "\tmembar.gl;\n\tst.u32 [%rd1], %r1;\n\tatom.add.u32 %r3, [%rd3], 1;\n"), refused);
    // ...but a store to shared memory needs no fence for other blocks.
    EXPECT_EQ(findings(entry + "\tmembar.gl;\n\tst.shared.u32 [%r1], %r1;\n\tatom.global.add.u32 %r3, [%rd3], 1;\n"),
              none);
    // A 64-bit ticket is a ticket; a release at GPU scope is its own fence.
    EXPECT_EQ(findings(entry + "\tst.global.u32 [%rd1], %r1;\n\tatom.global.add.u64 %rd3, [%rd3], 1;\n"), refused);
    EXPECT_EQ(findings(entry + "\tst.global.u32 [%rd1], %r1;\n\tatom.release.gpu.global.add.u32 %r3, [%rd3], 1;\n"),
              none);
    // libcu++'s atomic_ref<unsigned, thread_scope_device>::fetch_add(1, order), as nvcc writes it:
    // inline assembly, its modifiers in any order, the one in a register a mov set. Relaxed is a
    // ticket with no fence; acq_rel at GPU scope is its own fence.
    const std::string libcu = "\tst.global.u32 [%rd65], %r184;\n\tmov.u32 \t%r136, 1;\n\t// begin inline asm\n";
    EXPECT_EQ(findings(entry + libcu + "\tatom.add.relaxed.gpu.u32 %r135,[%rd27],%r136;\n"), refused);
    EXPECT_EQ(findings(entry + libcu + "\tatom.add.acq_rel.gpu.u32 %r135,[%rd27],%r136;\n"), none);
    // A register set again since its one (a block's sum), or a vector's, is no ticket's.
    EXPECT_EQ(findings(entry + libcu + "\tadd.s32 \t%r136, %r136, %r7;\n\tatom.add.relaxed.gpu.u32 %r135,[%rd27],%r136;\n"),
              none);
    EXPECT_EQ(findings(entry + libcu + "\tmov.b64 \t{%r136, %r137}, %rd9;\n\tatom.global.add.u32 %r135, [%rd27], %r136;\n"),
              none);
    // Through a helper: the ticket in a __noinline__ function asks its caller for the fence (the call
    // over several lines, as nvcc writes it); a helper that fences passes that on.
    const std::string helper =
        ".func  (.param .b32 func_retval0) _ZN4ex1111take_ticketEPj(\n\t.param .b64 p\n)\n{\n"
        "\tatom.global.add.u32 \t%r1, [%rd2], 1;\n\tret;\n}\n";
    const std::string call = "\tcall.uni (retval0), \n\t_ZN4ex1111take_ticketEPj, \n\t(\n\tparam0\n\t);\n";
    EXPECT_EQ(findings(helper + entry + "\tst.global.u32 [%rd1], %r1;\n\tmembar.gl;\n" + call), none);
    EXPECT_EQ(findings(helper + entry + "\tst.global.u32 [%rd1], %r1;\n" + call), refused);
    const std::string fencing = ".func _ZN4ex115fenceEv(\n)\n{\n\tmembar.gl;\n\tret;\n}\n";
    EXPECT_EQ(findings(fencing + entry + "\tst.global.u32 [%rd1], %r1;\n\tcall.uni _ZN4ex115fenceEv, ();\n"
                                         "\tatom.global.add.u32 %r3, [%rd3], 1;\n"),
              none);
    // Rungs without the rule are not held to it.
    lab::RungInfo other = rung;
    other.ticket_fence = false;
    std::ofstream(dir / "k.ptx", std::ios::trunc) << entry << "\tatom.global.add.u32 %r3, [%rd3], 1;\n";
    CompiledRung compiled;
    compiled.ptx = {(dir / "k.ptx").string()};
    EXPECT_TRUE(check_integrity(other, compiled).empty());
}

// An #include of the file's own may bring in the kit's public headers, the system's and CUDA's, and
// nothing else: not a rewritten copy of a reference in the build tree, however it was named. The
// CUDA runtime, call by call: what the rung's reference calls and the device queries; copies only
// from device to device.
TEST(Integrity, IncludesAndRuntimeCallsOfTheFilesOwnLines)
{
    const lab::RungInfo& rung = lab::Registry::kit().get("10");
    CompiledRung compiled;
    compiled.student_file = "/build/grading/submission/10_any_length.cu";
    compiled.shown_as = "exercises/10_any_length.cu";
    compiled.include_roots = {"/kit/kit/include", "/kit/harness/include", "/kit/cpu_backend/include"};
    compiled.runtime_calls = {"cudaMalloc", "cudaFree", "cudaMemsetAsync", "cudaMemcpyAsync"};
    const auto found = [&](const std::string& own) {
        const std::string text = "# 1 \"/kit/harness/src/rung_glue.cu\"\n"
                                 "# 1 \"/usr/local/cuda/include/cuda_runtime.h\" 1\n"
                                 "# 2 \"/kit/harness/src/rung_glue.cu\" 2\n"
                                 "# 1 \"/build/grading/submission/10_any_length.cu\" 1\n" + own;
        std::vector<std::string> said;
        for (const Finding& f : check_preprocessed(rung, text, compiled)) said.push_back(f.where + " [" + f.rule + "]");
        return said;
    };
    const std::vector<std::string> none;
    EXPECT_EQ(found("# 1 \"/kit/harness/include/lab/kernel.hpp\" 1\nint k;\n"
                    "# 2 \"/build/grading/submission/10_any_length.cu\" 2\n"
                    "# 1 \"/usr/include/c++/12/vector\" 1 3\nint v;\n"
                    "# 3 \"/build/grading/submission/10_any_length.cu\" 2\n"
                    "# 1 \"/usr/local/cuda/include/cooperative_groups.h\" 1\nint g;\n"
                    "# 4 \"/build/grading/submission/10_any_length.cu\" 2\n"),
              none);
    EXPECT_EQ(found("# 1 \"/build/cpu_sources/rung_10_any_length.cu\" 1\nint r;\n"
                    "# 2 \"/build/grading/submission/10_any_length.cu\" 2\n"
                    "# 1 \"/kit/harness/include/../../tests/mutants.json\" 1\nint m;\n"
                    "# 3 \"/build/grading/submission/10_any_length.cu\" 2\n"),
              (std::vector<std::string>{"exercises/10_any_length.cu:1 [source]", "exercises/10_any_length.cu:2 [source]"}));
    EXPECT_EQ(found("void f(int* d, int* s) { cudaMalloc(&d, 4); cudaMemcpyAsync(d, s, 4, cudaMemcpyDeviceToDevice); }\n"
                    "void g(int* d) { int n; cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0); }\n"),
              none);
    EXPECT_EQ(found("void f(int* d, int* s) {\n cudaMemcpyAsync(d, s, 4, cudaMemcpyKind(2));\n"
                    " cudaDeviceSynchronize();\n int k = cudaMemcpyDeviceToHost;\n cudaMemcpy(d, s, 4, cudaMemcpyDeviceToDevice); }\n"),
              (std::vector<std::string>{"exercises/10_any_length.cu:2 [host-calls]", "exercises/10_any_length.cu:3 [host-calls]",
                                        "exercises/10_any_length.cu:5 [host-calls]", "exercises/10_any_length.cu:4 [host-calls]"}));
}

// Every rule a rung names is one the grader has.
TEST(Integrity, EveryRungsRulesAreKnown)
{
    for (const lab::RungInfo& rung : lab::Registry::kit().rungs()) {
        EXPECT_FALSE(rung.forbids.empty()) << rung.id;
        for (const std::string& rule : rung.forbids)
            EXPECT_EQ(std::count(known_forbids().begin(), known_forbids().end(), rule), 1) << rung.id << ": " << rule;
    }
    lab::RungInfo made_up = lab::Registry::kit().get("03");
    made_up.forbids = {"recursion"};
    EXPECT_THROW(check_integrity(made_up, CompiledRung{}), std::runtime_error);
}

// The object reader on the kit's own reference object, and on a broken copy of it.
TEST(Integrity, ReadsAnObjectAndRefusesABrokenOne)
{
    std::ifstream paths(grading_build_dir() + "/grading/inspect/03_sequential.txt");
    std::string line, object;
    while (std::getline(paths, line))
        if (line.rfind("baseline=", 0) == 0) object = line.substr(9, line.find(';') - 9);
    ASSERT_TRUE(fs::exists(object)) << "the reference object is not built (grader_tests depends on it): " << object;
    const ElfObject elf = read_elf_object(object);
    bool kernel = false, init = false;
    for (const ElfSymbol& s : elf.symbols) kernel |= s.name.find("4ex03") != std::string::npos && s.defined;
    // The glue registers the rung before main, at a priority of its own (rung_glue.cu).
    for (const ElfSection& s : elf.sections) init |= s.name == ".init_array.60000" && s.size == 8;
    EXPECT_TRUE(kernel) << "no symbol of namespace ex03 in " << object;
    EXPECT_TRUE(init) << "no .init_array.60000 with one entry in " << object;
    std::ifstream in(object, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string broken = scratch("elf") / "broken.o";
    for (std::size_t cut : {std::size_t{16}, std::size_t{100}, bytes.size() / 2}) {
        std::ofstream(broken, std::ios::binary | std::ios::trunc) << bytes.substr(0, cut);
        EXPECT_THROW(read_elf_object(broken), std::runtime_error) << cut;
    }
    // Section headers pointing past the end.
    bytes[0x28] = '\xff', bytes[0x2f] = '\x7f';
    std::ofstream(broken, std::ios::binary | std::ios::trunc) << bytes;
    EXPECT_THROW(read_elf_object(broken), std::runtime_error);
}

// A build tree's configuration, as the reuse keys read it: grade-all's worker trees are configured
// from this tree's settings (grading/node-tree.args) and must read the same. A CUDA tree has no
// LAB_NVCC_CHECK, and its workers were given it empty: every rung a worker graded had a key of its
// own, and a resubmission graded by another worker was graded afresh.
TEST(Reuse, AWorkersTreeHasTheConfigurationOfTheTreeItWasMadeLike)
{
    const std::string tree = "CMAKE_BUILD_TYPE:STRING=RelWithDebInfo\n"
                             "CMAKE_CUDA_ARCHITECTURES:STRING=90\n"
                             "CMAKE_CXX_COMPILER:FILEPATH=/usr/bin/c++\n"
                             "CMAKE_HOME_DIRECTORY:INTERNAL=/kit\n"
                             "LAB_BACKEND:STRING=cuda\n";
    const std::string worker = "CMAKE_BUILD_TYPE:STRING=RelWithDebInfo\n"
                               "CMAKE_CUDA_ARCHITECTURES:STRING=90\n"
                               "CMAKE_CXX_COMPILER:STRING=/usr/bin/c++\n"
                               "CMAKE_HOME_DIRECTORY:INTERNAL=/kit-worker-1\n"
                               "LAB_BACKEND:STRING=cuda\n"
                               "LAB_NVCC_CHECK:STRING=\n";
    EXPECT_EQ(build_configuration(worker), build_configuration(tree));
    EXPECT_NE(build_configuration(tree).find("CMAKE_CUDA_ARCHITECTURES=90"), std::string::npos);
    // What does change a build changes it.
    for (const std::string& other : {"CMAKE_CUDA_ARCHITECTURES:STRING=90;100\n", "LAB_NVCC_CHECK:STRING=off\n",
                                     "CMAKE_BUILD_TYPE:STRING=Debug\n", "CMAKE_CUDA_FLAGS:STRING=-lineinfo\n"})
        EXPECT_NE(build_configuration(tree + other), build_configuration(tree)) << other;
}

// This very tree's settings for its workers (grading/node-tree.args) name every compiler its
// configuration holds: a CPU-backend tree that ./lab configured with nvcc found (CUDACXX) holds
// CMAKE_CUDA_COMPILER, and a worker tree configured without it read otherwise, so the rungs a second
// worker graded had reuse keys of their own (Kit.Grader.GradeAll failed when a graded rung fell to it).
TEST(Reuse, AWorkersSettingsNameEveryCompilerOfTheTree)
{
    const std::string dir = grading_build_dir();
    const auto cache = lab::try_read_file(dir + "/CMakeCache.txt");
    const auto args = lab::try_read_file(dir + "/grading/node-tree.args");
    ASSERT_TRUE(cache && args) << dir;
    const std::string kept = build_configuration(*cache);
    for (const char* compiler : {"CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER", "CMAKE_CUDA_COMPILER"}) {
        const std::string key = std::string(compiler) + "=";
        const auto at = kept.find(key);
        if (at == std::string::npos) continue;
        const std::string value = kept.substr(at + key.size(), kept.find('\n', at) - at - key.size());
        EXPECT_NE(args->find("-D" + key + value + "\n"), std::string::npos)
            << compiler << " is " << value << " in " << dir << ", but its workers' settings do not say so:\n" << *args;
    }
}

TEST(Rubric, TheDefaultLoads)
{
    const Rubric r = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    EXPECT_GT(r.points.visible, 0);
    // One entry per rung of the registry, each named by its id.
    EXPECT_EQ(r.rungs.size(), lab::Registry::kit().rungs().size());
    for (const auto& rung : lab::Registry::kit().rungs()) EXPECT_EQ(r.rungs.count(rung.id), 1u) << rung.id;
    EXPECT_EQ(r.speed_without_gpu, NotGradedHere::held);
    EXPECT_FALSE(r.hidden_details);
    EXPECT_FALSE(r.hidden_seed_pinned);
    // Every group on the CPU backend (bounded by max_n), none left out without a word.
    EXPECT_TRUE(r.cpu_hidden_groups.empty());
    EXPECT_TRUE(groups_left_out(r, false).empty());
    EXPECT_TRUE(groups_left_out(r, true).empty());
}

// A rubric of one key is the kit's rubric but for that key: every other has the kit's value.
TEST(Rubric, AKeyLeftOutIsTheKitsRubrics)
{
    const auto dir = scratch("rubric-defaults");
    std::ofstream(dir / "r.toml", std::ios::trunc) << "[course]\nname = \"CUDA parallel reduction\"\n";
    const Rubric mine = load_rubric((dir / "r.toml").string());
    const Rubric kit = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    EXPECT_DOUBLE_EQ(mine.max(), kit.max());
    for (const auto& [id, p] : kit.rungs) {
        const RungPoints& m = mine.for_rung(id);
        EXPECT_EQ(std::vector<double>({m.visible, m.hidden, m.speed, m.sanitizer}),
                  std::vector<double>({p.visible, p.hidden, p.speed, p.sanitizer})) << id;
    }
    EXPECT_EQ(mine.proportional, kit.proportional);
    EXPECT_EQ(std::vector<double>({mine.case_seconds, mine.gpu_case_seconds, mine.rung_seconds, mine.cpu_seconds,
                                   mine.memory_mib, mine.processes, mine.cpu_max_n, mine.sanitizer.penalty, mine.sanitizer.max_n, mine.sanitizer.cases}),
              std::vector<double>({kit.case_seconds, kit.gpu_case_seconds, kit.rung_seconds, kit.cpu_seconds,
                                   kit.memory_mib, kit.processes, kit.cpu_max_n, kit.sanitizer.penalty, kit.sanitizer.max_n, kit.sanitizer.cases}));
    EXPECT_EQ(mine.sanitizer.tools, kit.sanitizer.tools);
    EXPECT_EQ(mine.lessons.measure, kit.lessons.measure);
    EXPECT_EQ(mine.speed_without_gpu, kit.speed_without_gpu);
    EXPECT_EQ(mine.cpu_visible_groups, kit.cpu_visible_groups);
    EXPECT_EQ(mine.gpu_hidden_groups, kit.gpu_hidden_groups);
}

// A rung graded as a machine grades it: `visible` and `hidden` cases passing (one group each), its
// sanitizer pass clean; on a GPU its speed measured and met.
RungResult graded_rung(const Rubric& rubric, const std::string& id, bool gpu, int visible, int hidden)
{
    RungResult r;
    r.id = id;
    r.submitted = r.built = true;
    for (int k = 0; k < visible + hidden; ++k) {
        CaseResult c;
        c.name = "int_n" + std::to_string(k + 1) + "_b64";
        c.group = k < visible ? "edges" : "hidden_sizes";
        c.hidden = k >= visible;
        c.status = "passed";
        r.cases.push_back(c);
    }
    r.sanitizer.checks = {gpu ? "racecheck" : "thread orders"};
    SpeedVerdict met{true, "fast enough"};
    score_rung(r, rubric, gpu, gpu ? &met : nullptr);
    return r;
}

// The maximum is the rubric's, the same on every machine: a course of rungs 01-03 with the kit's
// points is 3 x (5 + 3 + 2 + 1) = 33 on the CPU backend (speed not graded here, its points held)
// and on a GPU alike, whatever ran; the rungs it does not assign carry nothing, the sanitizer point
// included. With no_gpu.speed = "excluded", speed leaves the maximum on both: 27.
// On a GPU a case's limit is the smaller of [gpu] and [limits] case_seconds; on the CPU backend,
// [limits] case_seconds alone (its cases run every thread order, far slower than a GPU).
TEST(Rubric, AGpuCaseHasTheShorterOfTheTwoLimits)
{
    const Rubric kit = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    EXPECT_EQ(std::vector<double>({kit.case_seconds_on(true), kit.case_seconds_on(false)}), std::vector<double>({15, 60}));
    const auto dir = scratch("rubric-gpu-limit");
    std::ofstream(dir / "short.toml", std::ios::trunc) << "[limits]\ncase_seconds = 8\n";
    std::ofstream(dir / "long.toml", std::ios::trunc) << "[gpu]\ncase_seconds = 30\n[limits]\ncase_seconds = 120\n";
    const Rubric tight = load_rubric((dir / "short.toml").string()), slow = load_rubric((dir / "long.toml").string());
    EXPECT_EQ(std::vector<double>({tight.case_seconds_on(true), tight.case_seconds_on(false)}), std::vector<double>({8, 8}));
    EXPECT_EQ(std::vector<double>({slow.case_seconds_on(true), slow.case_seconds_on(false)}), std::vector<double>({30, 120}));
}

TEST(Rubric, TheMaximumIsTheRubricsOnEveryMachine)
{
    const auto dir = scratch("rubric-max");
    std::ofstream(dir / "course.toml", std::ios::trunc) << "[course]\nrungs = [\"01\", \"02_strided_index\", \"03\"]\n";
    const Rubric course = load_rubric((dir / "course.toml").string());
    EXPECT_DOUBLE_EQ(course.max(), 33);
    EXPECT_TRUE(course.assigned("03_sequential"));
    EXPECT_FALSE(course.assigned("04_first_add"));
    EXPECT_EQ(course.rung_max("04_first_add"), 0);
    EXPECT_FALSE(course.sanitizer_on("12_real_kernels"));
    for (const std::string id : {"01_interleaved", "02_strided_index", "03_sequential"}) {
        const RungResult cpu = graded_rung(course, id, false, 3, 2), gpu = graded_rung(course, id, true, 3, 2);
        EXPECT_DOUBLE_EQ(cpu.max(), course.rung_max(id)) << id;
        EXPECT_DOUBLE_EQ(gpu.max(), course.rung_max(id)) << id;
        EXPECT_DOUBLE_EQ(gpu.score(), 11) << id;
        EXPECT_DOUBLE_EQ(cpu.score(), 9) << id;  // every point but speed's, which is held
        EXPECT_DOUBLE_EQ(cpu.held(), 2) << id;
        // Not submitted, or nothing of it run here: the same maximum.
        RungResult missing;
        missing.id = id;
        missing.unrun = "not submitted";
        score_rung(missing, course, false);
        EXPECT_DOUBLE_EQ(missing.max(), course.rung_max(id)) << id;
        const RungResult none_here = graded_rung(course, id, false, 0, 0);
        EXPECT_DOUBLE_EQ(none_here.max(), course.rung_max(id)) << id;
    }
    std::ofstream(dir / "excluded.toml", std::ios::trunc) << "[course]\nrungs = [\"01\", \"02\", \"03\"]\n[no_gpu]\nspeed = \"excluded\"\n";
    const Rubric excluded = load_rubric((dir / "excluded.toml").string());
    EXPECT_DOUBLE_EQ(excluded.max(), 27);
    EXPECT_EQ(graded_rung(excluded, "03_sequential", true, 3, 2).part("speed"), nullptr);
    EXPECT_DOUBLE_EQ(graded_rung(excluded, "03_sequential", true, 3, 2).max(), 9);
    // The kit's default: every rung, 12 x 11 = 132, on either machine.
    const Rubric kit = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    EXPECT_DOUBLE_EQ(kit.max(), 11.0 * lab::Registry::kit().rungs().size());
}

// Any category of a rung may be 0, its sanitizer point and technique included; a rung whose every
// category is 0 is not assigned.
TEST(Rubric, ARungsTableSetsAnyCategoryToZero)
{
    const auto dir = scratch("rubric-zero");
    std::ofstream(dir / "r.toml", std::ios::trunc)
        << "[rungs.04_first_add]\nvisible = 0\nhidden = 0\nspeed = 0\nsanitizer = 0\n"
           "[rungs.05_unroll_last_warp]\nsanitizer = 0\ntechnique = 0\n"
           "[sanitizer]\npenalty = 1.0\n"
           "[[lessons.technique]]\nrung = \"05_unroll_last_warp\"\nmetric = \"barriers_per_block\"\nat_most = 3\npoints = 1\n"
           "[[lessons.technique]]\nrung = \"03_sequential\"\nmetric = \"wavefronts_per_request\"\nat_most = 1\npoints = 0.5\n";
    const Rubric r = load_rubric((dir / "r.toml").string());
    EXPECT_FALSE(r.assigned("04_first_add"));
    EXPECT_FALSE(r.sanitizer_on("04_first_add"));  // no penalty either
    EXPECT_FALSE(r.sanitizer_on("05_unroll_last_warp"));
    EXPECT_TRUE(r.technique_of("05_unroll_last_warp").empty());
    EXPECT_DOUBLE_EQ(r.rung_max("05_unroll_last_warp"), 10);
    EXPECT_DOUBLE_EQ(r.rung_max("03_sequential"), 11.5);
    // Every rung of the registry but 04 at 11 points, less 05's sanitizer point, plus 03's technique.
    const double assigned = static_cast<double>(lab::Registry::kit().rungs().size()) - 1;
    EXPECT_DOUBLE_EQ(r.max(), 11.0 * assigned - 1 + 0.5);
}

TEST(Rubric, RefusesWhatACourseCannotMean)
{
    const auto dir = scratch("rubric-refused");
    const auto refused = [&](const std::string& text, const std::string& says) {
        std::ofstream(dir / "r.toml", std::ios::trunc) << text;
        try {
            load_rubric((dir / "r.toml").string());
            ADD_FAILURE() << "accepted:\n" << text;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("r.toml:"), std::string::npos) << e.what();  // its file and line
        }
    };
    refused("[no_gpu]\nspeed = \"not_graded\"\n", "\"held\"");
    refused("[no_gpu]\nspeed = \"zero\"\n", "\"excluded\"");
    refused("[course]\nrungs = [\"99\"]\n", "no rung \"99\"");
    refused("[course]\nrungs = [\"03\", \"03_sequential\"]\n", "listed twice");
    refused("[course]\nrungs = []\n", "assigns no rung");
    refused("[course]\nrungs = [\"03\"]\n[rungs.04_first_add]\nvisible = 1\n", "does not assign");
    refused("[rungs.04_first_add]\ntechnique = 2\n", "only 0 here");
    refused("[hidden]\nseed = \"twelve\"\n", "must be a seed");
    refused("[hidden]\nshow = true\n", "not a key the grader knows");
}

// Hidden inputs: a seed no report gives, drawn from the grading's and the hidden catalogue's bytes
// (so the report's seed alone does not give them), a new one each grading; or the rubric's.
TEST(Rubric, TheHiddenSeedIsNotTheReportsAndCanBePinned)
{
    const Rubric kit = load_rubric(std::string(LAB_SOURCE_DIR) + "/grader/rubric.toml");
    const std::uint64_t a = hidden_seed(kit, 1), b = hidden_seed(kit, 2);
    EXPECT_NE(a, b);
    EXPECT_EQ(a, hidden_seed(kit, 1));
    for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{2}}) {
        EXPECT_NE(hidden_seed(kit, seed), seed);
        EXPECT_NE(hidden_seed(kit, seed), seed ^ 0x9e3779b97f4a7c15ull);  // what it once was: the report's seed gave it
    }
    const auto dir = scratch("rubric-hidden-seed");
    std::ofstream(dir / "r.toml", std::ios::trunc) << "[hidden]\ndetails = true\nseed = \"0x00000000000000ff\"\n";
    const Rubric pinned = load_rubric((dir / "r.toml").string());
    EXPECT_TRUE(pinned.hidden_details);
    EXPECT_EQ(hidden_seed(pinned, 1), 0xffu);
    EXPECT_EQ(hidden_seed(pinned, 2), 0xffu);
}

// A rubric that lists the CPU backend's groups names every other one at grading time.
TEST(Rubric, AGroupLeftOutIsNamed)
{
    const auto dir = scratch("rubric-left-out");
    std::ofstream(dir / "r.toml", std::ios::trunc) << "[no_gpu]\nhidden_groups = [\"hidden_sizes\"]\n";
    const Rubric r = load_rubric((dir / "r.toml").string());
    const auto left_out = groups_left_out(r, false);
    EXPECT_NE(std::find(left_out.begin(), left_out.end(), "hidden group hidden_spikes (not in the rubric's no_gpu.hidden_groups)"),
              left_out.end());
    for (const std::string& group : left_out) EXPECT_EQ(group.find("hidden_sizes "), std::string::npos) << group;
    EXPECT_TRUE(groups_left_out(r, true).empty());
}

// The late policy: a time in its zone, days late counted past the grace period (a part of a day
// counts whole), the fraction capped, an extension's own due time.
TEST(Rubric, TheLatePolicyCountsDaysPastGraceAndHonoursExtensions)
{
    const auto dir = scratch("rubric-late");
    std::ofstream(dir / "extensions.csv", std::ios::trunc) << "student,due\nana,2026-12-03T23:59:00Z\n";
    std::ofstream(dir / "r.toml", std::ios::trunc)
        << "[late]\ndue = \"2026-12-01T23:59:00+01:00\"\ngrace_minutes = 15\npenalty_per_day = 0.1\nmost_penalty = 0.25\n"
           "extensions = \"extensions.csv\"\n";
    const Rubric r = load_rubric((dir / "r.toml").string());
    ASSERT_TRUE(r.late.on);
    EXPECT_EQ(format_time(r.late.due), "2026-12-01T22:59:00Z");
    const auto late = [&](const std::string& student, const std::string& when) { return lateness(r.late, student, parse_time(when)); };
    EXPECT_EQ(late("ben", "2026-12-01T23:13:59Z").days, 0);  // within the grace period
    EXPECT_EQ(late("ben", "2026-12-01T23:15:00Z").days, 1);  // a minute past it: a day
    EXPECT_DOUBLE_EQ(late("ben", "2026-12-01T23:15:00Z").fraction, 0.1);
    EXPECT_EQ(late("ben", "2026-12-03T23:14:00Z").days, 2);
    EXPECT_EQ(late("ben", "2026-12-03T23:15:00Z").days, 3);
    EXPECT_DOUBLE_EQ(late("ben", "2026-12-09T00:00:00Z").fraction, 0.25);  // capped
    EXPECT_EQ(late("ana", "2026-12-03T23:00:00Z").days, 0);                // her extension
    EXPECT_TRUE(late("ana", "2026-12-03T23:00:00Z").extended);
    EXPECT_EQ(late("ana", "2026-12-04T01:00:00Z").days, 1);
    EXPECT_EQ(parse_time("2026-12-01T23:59Z"), parse_time("2026-12-02T00:59:00+01:00"));
    EXPECT_THROW(parse_time("2026-12-01 23:59"), std::runtime_error);  // no zone
    EXPECT_THROW(parse_time("yesterday"), std::runtime_error);
    EXPECT_THROW(parse_time("2026-13-01T00:00Z"), std::runtime_error);
}

TEST(Rubric, AMistakeIsNamedWithItsLineAndKey)
{
    const auto dir = scratch("rubric");
    const auto refusal = [&](const std::string& text) {
        std::ofstream(dir / "r.toml", std::ios::trunc) << text;
        try {
            load_rubric((dir / "r.toml").string());
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(refusal("[points]\nvisible = 4\nhiden = 2\n").find("r.toml:3: key points.hiden: not a key"), std::string::npos);
    EXPECT_NE(refusal("[points]\nvisible = \"four\"\n").find("r.toml:2: key points.visible: must be a number"),
              std::string::npos);
    EXPECT_NE(refusal("[rungs.10_nothing]\nvisible = 1\n").find("key rungs.10_nothing: no such rung"), std::string::npos);
    EXPECT_NE(refusal("[no_gpu]\nspeed = \"half\"\n").find("r.toml:2: key no_gpu.speed: must be one of"), std::string::npos);
    EXPECT_NE(refusal("[points\n").find("r.toml:1"), std::string::npos);
    EXPECT_EQ(refusal("[rungs.07_coarsening]\nspeed = 0\n"), "accepted");
    EXPECT_NE(refusal("[sanitizer]\npoints = 1\ntools = [\"memcheck\", \"racecheck\", \"leakcheck\"]\n")
                  .find("r.toml:3: key sanitizer.tools: \"leakcheck\" is not a compute-sanitizer tool"),
              std::string::npos);
    EXPECT_NE(refusal("[sanitizer]\nthread_orders = \"yes\"\n").find("r.toml:2: key sanitizer.thread_orders: must be true or false"),
              std::string::npos);
    EXPECT_NE(refusal("[sanitizer]\npenalty = -1\n").find("r.toml:2: key sanitizer.penalty: must be at least"), std::string::npos);
    EXPECT_NE(refusal("[late]\npenalty_per_day = 0.1\n").find("key late.due: is missing"), std::string::npos);
    EXPECT_NE(refusal("[late]\ndue = \"2026-12-01 23:59\"\n").find("r.toml:2: key late.due: \"2026-12-01 23:59\" is not an ISO 8601"),
              std::string::npos);
    EXPECT_NE(refusal("[late]\ndue = \"2026-12-01T23:59Z\"\npenalty_per_day = 10\n").find("key late.penalty_per_day: is a fraction"),
              std::string::npos);
    EXPECT_NE(refusal("[late]\ndue = \"2026-12-01T23:59Z\"\nextensions = \"none.csv\"\n").find("key late.extensions: cannot read"),
              std::string::npos);
    EXPECT_EQ(refusal("[late]\ndue = 2026-12-01T23:59:00Z\n"), "accepted");  // TOML's own date-time
}

}  // namespace
