// The generator that writes exercises/ from solutions/.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "dictation.hpp"
#include "lab/registry.hpp"
#include "lab/todos.hpp"
#include "skeleton.hpp"

namespace {

const std::string kHeader = "// 05_demo: a header.\n";

std::string expect_error(const std::string& solution)
{
    try {
        lab::make_skeleton(kHeader + solution, "solutions/05_demo.cu", "05");
    } catch (const lab::SkeletonError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << solution;
    return {};
}

TEST(Skeleton, KeepsInstructionsAndStubsAndDropsTheSolution)
{
    const std::string solution = kHeader +
                                 "int f()\n"
                                 "{\n"
                                 "    // BEGIN TODO(05-sum, ~2 lines): add it up\n"
                                 "    //   carefully\n"
                                 "    int s = 1;\n"
                                 "    return s + 1;\n"
                                 "    // STUB: return 0;  // wrong on purpose\n"
                                 "    // END TODO\n"
                                 "    // BEGIN TODO(05-empty, ~1 line): nothing to start from\n"
                                 "    g();\n"
                                 "    // STUB:\n"
                                 "    // END TODO\n"
                                 "}\n";
    const auto skeleton = lab::make_skeleton(solution, "solutions/05_demo.cu", "05");
    EXPECT_EQ(skeleton.text, kHeader +
                                 "//\n"
                                 "// Exercise: fill in each TODO below, then delete its TODO line. Check your work with\n"
                                 "// ./lab check 05 (./lab watch 05 checks on every save); stuck? ./lab hint 05.\n"
                                 "int f()\n"
                                 "{\n"
                                 "    // TODO(05-sum, ~2 lines): add it up\n"
                                 "    //   carefully\n"
                                 "    return 0;  // wrong on purpose\n"
                                 "    // TODO(05-empty, ~1 line): nothing to start from\n"
                                 "}\n");
    EXPECT_EQ(skeleton.todo_names, (std::vector<std::string>{"05-sum", "05-empty"}));
}

TEST(Skeleton, RefusesMalformedRegionsWithTheLine)
{
    EXPECT_NE(expect_error("// BEGIN TODO(05-a, ~1 line): x\ncode;\n").find(":2: the TODO region opened here has no // END TODO"),
              std::string::npos);
    EXPECT_NE(expect_error("// BEGIN TODO(05-a, ~1 line): x\ncode;\n// END TODO\n").find("has no STUB line"),
              std::string::npos);
    EXPECT_NE(expect_error("// BEGIN TODO(05-a, ~1 line): x\n// BEGIN TODO(05-b, ~1 line): y\n").find("inside another"),
              std::string::npos);
    EXPECT_NE(expect_error("// BEGIN TODO(06-a, ~1 line): x\n// STUB:\n// END TODO\n").find("must start with the rung's number"),
              std::string::npos);
    EXPECT_NE(expect_error("// BEGIN TODO(05-a): x\n// STUB:\n// END TODO\n").find("must say how much to write"),
              std::string::npos);
    EXPECT_NE(expect_error("// BEGIN TODO(05-a, ~1 line): x\n// STUB:\n// END TODO\n"
                           "// BEGIN TODO(05-a, ~1 line): x\n// STUB:\n// END TODO\n")
                  .find("used twice"),
              std::string::npos);
    EXPECT_NE(expect_error("// STUB: x\n").find(":2: '// STUB: x' outside a TODO region"), std::string::npos);
    EXPECT_NE(expect_error("// BEGIN TODO(05-a, ~1 line): x\n// STUB: y\nint z;\n// END TODO\n").find("only STUB lines"),
              std::string::npos);
    EXPECT_NE(expect_error("int x;\n").find("no TODO regions"), std::string::npos);
}

// The TODO of rung 05 as it stood before the kit's TODOs stated goals instead of code: a planted
// dictation, kept word for word.
const std::string kDictating05 =
    "template <typename T>\n"
    "__global__ void reduce(T* partial, unsigned tid)\n"
    "{\n"
    "    if (tid < 32) {\n"
    "        // BEGIN TODO(05-warp-unroll, ~6 lines): fold the 64 partials left into partial[0] with warp\n"
    "        //   0 alone. For offset = 32, 16, 8, 4, 2, 1: read partial[tid + offset] into a register,\n"
    "        //   __syncwarp(), add it into partial[tid], __syncwarp(). Without the first __syncwarp() a\n"
    "        //   lane may write a slot before another lane has read it; without the second, read it\n"
    "        //   before it is written.\n"
    "#pragma unroll\n"
    "        for (unsigned offset = 32; offset > 0; offset /= 2) {\n"
    "            const T other = partial[tid + offset];\n"
    "            __syncwarp();\n"
    "            partial[tid] += other;\n"
    "            __syncwarp();\n"
    "        }\n"
    "        // STUB:\n"
    "        // END TODO\n"
    "    }\n"
    "}\n";

TEST(Skeleton, RefusesATodoThatDictatesItsAnswer)
{
    const std::string error = expect_error(kDictating05);
    EXPECT_NE(error.find("solutions/05_demo.cu:6: TODO(05-warp-unroll) dictates its answer"), std::string::npos) << error;
    EXPECT_NE(error.find("`partial[tid + offset]`, an indexed read"), std::string::npos) << error;
    EXPECT_NE(error.find("`__syncwarp()`"), std::string::npos) << error;
}

// Whitespace and a number's suffixes do not hide a fragment; a call, a statement and an indexed read
// are each found; what the exercise shows as code anyway (here the stub) is no dictation.
TEST(Skeleton, DictationIsReadAsTokens)
{
    const auto todo = [](const std::string& comment, const std::string& code, const std::string& stub = "") {
        return "void f(unsigned* tickets, float* s, unsigned t)\n{\n    // BEGIN TODO(05-a, ~1 line): " + comment +
               "\n    " + code + "\n    // STUB:" + (stub.empty() ? "" : " " + stub) + "\n    // END TODO\n}\n";
    };
    EXPECT_NE(expect_error(todo("take atomicAdd( tickets,1 ) first", "const unsigned k = atomicAdd(tickets, 1u);"))
                  .find("`atomicAdd(tickets, 1u)`, a call"),
              std::string::npos);
    EXPECT_NE(expect_error(todo("add s[ t+1 ] in", "s[t] += s[t + 1];")).find("`s[t + 1]`, an indexed read"), std::string::npos);
    EXPECT_NE(expect_error(todo("k is t*2 + 1", "unsigned k = t * 2 + 1;")).find("`t * 2 + 1`, a statement"), std::string::npos);
    EXPECT_NE(expect_error(todo("loop while k > 0.5", "for (float k = 1.0f; k > 0.5f; k /= 2) s[t] += k;")).find("`k > 0.5f`, a statement"),
              std::string::npos);
    // Shown by the stub: the student reads it there anyway.
    EXPECT_NO_THROW(lab::make_skeleton(kHeader + todo("s[t] must hold its sum", "s[t] = 1.0f;", "s[t] = 0.0f;"),
                                       "solutions/05_demo.cu", "05"));
    // Words and names alone are no code.
    EXPECT_NO_THROW(lab::make_skeleton(kHeader + todo("take a ticket from tickets, once: atomically", "atomicAdd(tickets, 1u);"),
                                       "solutions/05_demo.cu", "05"));
}

TEST(Skeleton, NoRungsTodoDictatesItsAnswer)
{
    for (const auto& rung : lab::Registry::kit().rungs()) {
        std::ifstream file(lab::kit_path("solutions/" + rung.id + ".cu"));
        std::stringstream text;
        text << file.rdbuf();
        EXPECT_NO_THROW(lab::make_skeleton(text.str(), "solutions/" + rung.id + ".cu", rung.number)) << rung.id;
    }
}

// What a failing case tells the student in a rung's words (rungs.json "diagnoses") points to the
// TODO and to ./lab hint, never to the code: the same test as a TODO's, against every region of the
// rung's solution.
TEST(Skeleton, NoDiagnosisDictatesAnAnswer)
{
    for (const auto& rung : lab::Registry::kit().rungs()) {
        std::ifstream file(lab::kit_path("solutions/" + rung.id + ".cu"));
        std::stringstream text;
        text << file.rdbuf();
        const auto skeleton = lab::make_skeleton(text.str(), rung.id, rung.number);
        for (const auto& [pattern, said] : rung.diagnoses) {
            EXPECT_NE(said.find("./lab hint"), std::string::npos) << rung.id << " " << pattern << ": " << said;
            for (const auto& todo : skeleton.todos)
                for (const auto& leak : lab::dictated(said, todo.code, skeleton.text))
                    ADD_FAILURE() << rung.id << " " << pattern << " gives away `" << leak.fragment << "` of TODO " << todo.name;
        }
    }
}

// A later rung's region that carries an earlier TODO's code asks for the student's own, with its
// size counted from the code.
TEST(Skeleton, ACarriedRegionAsksForTheStudentsOwnCode)
{
    const auto skeleton = lab::make_skeleton(kHeader +
                                                 "void f()\n{\n"
                                                 "    // BEGIN TODO(05-load, from 01-shared-decl 01-padding 04-two-loads): now for twice as many\n"
                                                 "    int a = 1;\n"
                                                 "    // a comment, not code\n"
                                                 "    int b = 2;\n"
                                                 "    // STUB: int a = 0, b = 0;\n"
                                                 "    // END TODO\n}\n",
                                             "solutions/05_demo.cu", "05");
    ASSERT_EQ(skeleton.todos.size(), 1u);
    EXPECT_EQ(skeleton.todos[0].from, (std::vector<std::string>{"01-shared-decl", "01-padding", "04-two-loads"}));
    EXPECT_EQ(skeleton.todos[0].size, "~2 lines");
    EXPECT_EQ(skeleton.todos[0].code, "int a = 1;\n// a comment, not code\nint b = 2;\n");
    EXPECT_NE(skeleton.text.find("    // TODO(05-load, ~2 lines): bring your own code of TODO 01-shared-decl and 01-padding "
                                 "(rung 01) and\n    //   TODO 04-two-loads (rung 04) here; now for twice as many\n"
                                 "    int a = 0, b = 0;\n"),
              std::string::npos)
        << skeleton.text;
    EXPECT_NE(expect_error("// BEGIN TODO(05-a, from 05-b): x\n// STUB:\n// END TODO\n").find("not the TODO of an earlier rung"),
              std::string::npos);
    EXPECT_NE(expect_error("// BEGIN TODO(05-a, from ): x\n// STUB:\n// END TODO\n").find("names no TODO"), std::string::npos);
}

TEST(Skeleton, EveryExerciseOpensTheTodosItsSolutionMarks)
{
    for (const auto& rung : lab::Registry::kit().rungs()) {
        std::ifstream file(lab::kit_path("solutions/" + rung.id + ".cu"));
        std::stringstream text;
        text << file.rdbuf();
        const auto skeleton = lab::make_skeleton(text.str(), rung.id, rung.number);
        std::vector<std::string> open;
        for (const auto& todo : lab::find_todos(lab::kit_path("exercises/" + rung.id + ".cu"))) open.push_back(todo.name);
        EXPECT_EQ(open, skeleton.todo_names) << rung.id;
    }
}

}  // namespace
