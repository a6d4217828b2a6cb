// Kit.Batch.Similarity.*: the similarity report on a class of rung 10 made from the kit's own
// submissions: the reference, the corpus's independent alternatives and mistakes (each the
// reference with its expect.json's edits), and a planted copy of one alternative with its
// variables renamed and two independent statements swapped.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "lab/registry.hpp"
#include "lab/text.hpp"
#include "similarity.hpp"
#include "skeleton.hpp"

namespace {

using lab::batch::RungFile;
using nlohmann::json;

const std::string kRung = "10_any_length";

// A corpus entry's file of rung 10: the reference with the entry's edits made.
std::string corpus_file(const std::string& entry)
{
    std::string text = lab::read_file(lab::kit_path("solutions/" + kRung + ".cu"));
    const json expect = json::parse(lab::read_file(lab::kit_path("grader/corpus/" + entry + "/expect.json")));
    for (const json& edit : expect.value("edits", json::array())) {
        if (edit.at("rung") != kRung) continue;
        const std::string from = edit.at("replace"), to = edit.at("with");
        const std::size_t at = text.find(from);
        if (at == std::string::npos) throw std::runtime_error(entry + "'s edit is not in the reference");
        text.replace(at, from.size(), to);
    }
    return text;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to)
{
    return std::regex_replace(text, std::regex("\\b" + from + "\\b"), to);
}

// The copy: alternative_10_host_library with every name of its own renamed, its comments
// reworded, and the two independent statements at the start of its constructor swapped.
std::string planted_copy(const std::string& original)
{
    std::string text = original;
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"probe", "values"}, {"sink", "scratch"}, {"said", "printed_once"}, {"max_n", "capacity"}})
        text = replace_all(text, from, to);
    text = std::regex_replace(text, std::regex("// Host code a student might write"), "// my own checks");
    const std::string first = "    std::vector<double> values{3.0, 1.0, 2.0};\n";
    const std::string second = "    static volatile unsigned long long scratch = 0;\n";
    const std::size_t a = text.find(first), b = text.find(second);
    if (a == std::string::npos || b == std::string::npos || b < a) throw std::runtime_error("the copy's statements moved");
    text.erase(b, second.size());
    text.insert(a, second);
    return text;
}

std::vector<std::string> base()
{
    const std::string solution = lab::read_file(lab::kit_path("solutions/" + kRung + ".cu"));
    return {solution, lab::make_skeleton(solution, "solutions/" + kRung + ".cu", "10").text};
}

std::vector<RungFile> the_class()
{
    std::vector<RungFile> files{{"reference", lab::read_file(lab::kit_path("solutions/" + kRung + ".cu"))}};
    for (const char* entry : {"alternative_10_fixed_grid", "alternative_10_grid_from_the_device", "alternative_10_host_library",
                              "alternative_10_vector_of_sizes", "mistake_10_tail_not_cleared"})
        files.push_back({entry, corpus_file(entry)});
    files.push_back({"copier", planted_copy(corpus_file("alternative_10_host_library"))});
    return files;
}

TEST(Similarity, NamesAreOneTokenAndCommentsNone)
{
    const auto a = lab::batch::tokens_of("int total = x + 1; // a sum\n/* note */ __syncthreads();\n#include <x>\n");
    const auto b = lab::batch::tokens_of("int sum=x+1;\n__syncthreads ( ) ;");
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].text, b[i].text) << i;
    EXPECT_EQ(a.front().text, "int");
    EXPECT_EQ(a[1].text, "I");
    EXPECT_EQ(a.back().line, 2);
}

TEST(Similarity, ThePlantedCopyRanksFirstAndNoIndependentPairIsListed)
{
    const std::vector<RungFile> files = the_class();
    ASSERT_NE(files.back().text, files[3].text);  // the copy is not the same text
    // Every pair that shares anything, for the log: how far below the threshold the others are.
    lab::batch::SimilarityOptions everything;
    everything.threshold = 0;
    everything.min_shared = 1;
    for (const auto& p : lab::batch::similar_pairs(kRung, files, base(), everything).pairs)
        std::printf("%s and %s: %.2f (%d shared of %d and %d)\n", p.a.c_str(), p.b.c_str(), p.score, p.shared, p.own_a, p.own_b);
    const lab::batch::RungSimilarity r = lab::batch::similar_pairs(kRung, files, base());
    ASSERT_FALSE(r.pairs.empty()) << "the planted copy was not found";
    EXPECT_EQ(r.pairs.front().a, "alternative_10_host_library");
    EXPECT_EQ(r.pairs.front().b, "copier");
    EXPECT_GE(r.pairs.front().score, 0.8);
    // Only that pair: the independent alternatives, the mistake and the reference are not listed.
    EXPECT_EQ(r.pairs.size(), 1u) << r.pairs[1 % r.pairs.size()].a << " and " << r.pairs[1 % r.pairs.size()].b;
    // The lines shown are the copied ones, not the reference's.
    const std::set<int>& lines = r.pairs.front().lines_b;
    ASSERT_FALSE(lines.empty());
    const std::string text = files.back().text;
    std::size_t start = 0;
    for (int line = 1; line < *lines.begin(); ++line) start = text.find('\n', start) + 1;
    const std::string first_line = text.substr(start, text.find('\n', start) - start);
    EXPECT_TRUE(first_line.find("values") != std::string::npos || first_line.find("scratch") != std::string::npos ||
                first_line.find("printed_once") != std::string::npos || first_line.find("std::") != std::string::npos)
        << first_line;

    // Without the kit's own text set aside, an alternative and the reference it was made from are
    // listed (in a class this small, nothing is common): the base is what keeps them apart.
    const std::vector<RungFile> two{files[0], files[1]};
    EXPECT_EQ(lab::batch::similar_pairs(kRung, two, {}).pairs.size(), 1u);
    EXPECT_TRUE(lab::batch::similar_pairs(kRung, two, base()).pairs.empty());
}

TEST(Similarity, WhatMuchOfTheClassSharesIsSetAside)
{
    // Six students who all added the same helper, and nothing else: common, not evidence.
    std::vector<RungFile> files;
    const std::string helper =
        "\n__device__ float squared_sum_of_three(float first, float second, float third)\n"
        "{\n    return first * first + second * second + third * third;\n}\n";
    for (int i = 0; i < 6; ++i) files.push_back({"s" + std::to_string(i), base().front() + helper});
    const lab::batch::RungSimilarity r = lab::batch::similar_pairs(kRung, files, base());
    EXPECT_TRUE(r.pairs.empty());
    EXPECT_GT(r.common, 0);
    // Two of them only: listed.
    files.resize(2);
    EXPECT_EQ(lab::batch::similar_pairs(kRung, files, base()).pairs.size(), 1u);
}

TEST(Similarity, TheReportSaysItIsNoVerdictAndShowsBothSides)
{
    const std::vector<RungFile> files = the_class();
    const lab::batch::RungSimilarity r = lab::batch::similar_pairs(kRung, files, base());
    lab::batch::ClassTexts texts;
    for (const RungFile& f : files) texts[kRung][f.student] = f.text;
    const std::string html = lab::batch::similarity_html({r}, {}, texts);
    EXPECT_NE(html.find("never a verdict"), std::string::npos);
    EXPECT_NE(html.find("<h3>alternative_10_host_library and copier: "), std::string::npos);
    EXPECT_NE(html.find("values"), std::string::npos);  // the copy's side
    EXPECT_NE(html.find("probe"), std::string::npos);   // the original's side
    const std::string md = lab::batch::similarity_markdown({r}, {}, texts);
    EXPECT_NE(md.find("| 10_any_length | 7 | 1 |"), std::string::npos) << md.substr(0, 1500);
}

TEST(Similarity, SharedLinesAreShownAsTextNeverAsMarkup)
{
    // Two submissions sharing a helper whose text is markup: the instructor's page shows it, escaped.
    const std::string helper =
        "\n__device__ void announce_the_sum(float total, float expected, float slack)\n{\n"
        "    if (total - expected > slack) printf(\"</pre><script>document.title = 'pwned'</script><pre>\");\n"
        "    if (expected - total > slack) printf(\"<img src=x onerror=alert(1)>\");\n}\n";
    const std::vector<RungFile> files{{"a", base().front() + helper}, {"b", base().front() + helper}};
    const lab::batch::RungSimilarity r = lab::batch::similar_pairs(kRung, files, base());
    ASSERT_EQ(r.pairs.size(), 1u);
    lab::batch::ClassTexts texts;
    for (const RungFile& f : files) texts[kRung][f.student] = f.text;
    const std::string html = lab::batch::similarity_html({r}, {}, texts);
    EXPECT_EQ(html.find("<script>"), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_NE(html.find("&lt;/pre&gt;&lt;script&gt;"), std::string::npos) << html.substr(html.find("<h3>"), 2000);
}

}  // namespace
