// The TODO scanner: what blocks an unfinished exercise, and what the student is told.
#include <gtest/gtest.h>

#include <fstream>

#include "lab/registry.hpp"
#include "lab/todos.hpp"

namespace {

std::string write_temp(const std::string& name, const std::string& text)
{
    const std::string path = testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}

TEST(Todos, FindsOpenMarkersWithTheirLines)
{
    const auto path = write_temp("todos.cu",
                                 "int x;\n"
                                 "    // TODO(07-loop, ~2 lines): sum the thread's elements\n"
                                 "    //   in a grid-stride loop\n"
                                 "    int y;\n"
                                 "    // BEGIN TODO(07-other, ~1 line): a solution's marker is not open\n"
                                 "// TODO(07-last): no size\n");
    const auto todos = lab::find_todos(path);
    ASSERT_EQ(todos.size(), 2u);
    EXPECT_EQ(todos[0].line, 2);
    EXPECT_EQ(todos[0].name, "07-loop");
    EXPECT_EQ(todos[0].marker, "TODO(07-loop, ~2 lines): sum the thread's elements in a grid-stride loop");
    EXPECT_EQ(todos[1].line, 6);
    EXPECT_EQ(todos[1].name, "07-last");
}

TEST(Todos, TheMessageListsEachTodoAndWhatToDo)
{
    const auto path = write_temp("todos2.cu", "// TODO(03-loop, ~1 line): write the loop header\n");
    const auto text = lab::describe_todos("exercises/03_sequential.cu", lab::find_todos(path), "03");
    EXPECT_NE(text.find("Exercise 03 is not finished"), std::string::npos) << text;
    EXPECT_NE(text.find("exercises/03_sequential.cu:1: TODO(03-loop, ~1 line): write the loop header"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("delete that TODO line"), std::string::npos) << text;
    EXPECT_NE(text.find("./lab hint 03"), std::string::npos) << text;
}

TEST(Todos, UnreadableFileIsAnError) { EXPECT_ANY_THROW(lab::find_todos("/nonexistent/file.cu")); }

TEST(Todos, ExercisesStartUnfinishedAndSolutionsDoNot)
{
    for (const auto& rung : lab::Registry::kit().rungs()) {
        EXPECT_FALSE(lab::find_todos(lab::kit_path("exercises/" + rung.id + ".cu")).empty())
            << "exercises/" << rung.id << ".cu has no open TODO: a student would start with the answer";
        EXPECT_TRUE(lab::find_todos(lab::kit_path("solutions/" + rung.id + ".cu")).empty())
            << "solutions/" << rung.id << ".cu has an open TODO line; solutions mark gaps with BEGIN TODO";
    }
}

}  // namespace
