// The generator that writes exercises/ from solutions/.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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
