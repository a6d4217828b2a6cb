// Kit tests of the grading categories' list (categories.hpp): what a new category must bring.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "categories.hpp"

namespace {

using namespace lab::grading;

// A new grading category is its file, its rubric table, its schema fragment and one line in
// categories.hpp's list (grader/DEVELOPING.md, "Adding a category"): every category of the list has
// its fragment (schemas/categories/NAME.schema.json, its $id the category's), grade.json's schema
// refers to each fragment and to nothing else, and the fields each category writes into a rung are
// the ones its fragment requires.
TEST(Categories, EachHasItsSchemaFragmentAndWritesWhatItSays)
{
    const std::string schemas = std::string(LAB_SOURCE_DIR) + "/grader/schemas";
    const auto parse = [](const std::string& path) {
        std::ifstream in(path);
        EXPECT_TRUE(in) << path << " is missing";
        return in ? nlohmann::json::parse(in) : nlohmann::json::object();
    };
    std::set<std::string> refs;
    const nlohmann::json grade = parse(schemas + "/grade.schema.json");
    for (const auto& ref : grade.at("properties").at("rungs").at("items").at("allOf"))
        refs.insert(ref.at("$ref").get<std::string>());
    std::set<std::string> ids;
    for (const auto& category : grading_categories()) {
        const std::string name = category->name(), id = "urn:lab:grader:category:" + name;
        ids.insert(id);
        const nlohmann::json fragment = parse(schemas + "/categories/" + name + ".schema.json");
        EXPECT_EQ(fragment.value("$id", ""), id) << name << "'s fragment";
        EXPECT_TRUE(refs.count(id)) << "grade.schema.json's rungs do not refer to " << id;
        nlohmann::json rung = nlohmann::json::object();
        category->report(RungResult{}, rung);
        std::set<std::string> written, required;
        for (const auto& [key, value] : rung.items()) written.insert(key);
        for (const auto& key : fragment.value("required", nlohmann::json::array())) required.insert(key.get<std::string>());
        EXPECT_EQ(written, required) << name << " writes other fields than its fragment requires";
    }
    EXPECT_EQ(refs, ids) << "grade.schema.json refers to a fragment no category of the list has";
}

}  // namespace
