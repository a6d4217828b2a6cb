// The kit's one reader of files and its one way of escaping XML, HTML and CSV (lab/text.hpp), which
// the suites' JUnit, the grader's reports and grade-all's gradebook all write with.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "lab/test_results.hpp"
#include "lab/text.hpp"

namespace {

TEST(Text, XmlEscapesMarkupAndReplacesWhatXmlCannotHold)
{
    EXPECT_EQ(lab::xml_escape("a<b> & \"c\""), "a&lt;b&gt; &amp; &quot;c&quot;");
    EXPECT_EQ(lab::xml_escape("line\nnext\tcol"), "line\nnext\tcol");
    EXPECT_EQ(lab::xml_escape(std::string("bell\x07!", 6)), "bell?!");
    // A kernel's output or a build log may hold any bytes: a Latin-1 byte is not UTF-8, and a JUnit
    // file with it would not parse.
    EXPECT_EQ(lab::xml_escape("caf\xe9 ok"), "caf\xEF\xBF\xBD ok");
    EXPECT_EQ(lab::xml_escape("\xc3\xa9t\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"), "\xc3\xa9t\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80")
        << "well-formed UTF-8 passes unchanged";
}

TEST(Text, EveryByteThatIsNotUtf8BecomesTheReplacementCharacter)
{
    const std::string r = "\xEF\xBF\xBD";
    EXPECT_EQ(lab::valid_utf8("caf\xe9 ok"), "caf" + r + " ok");
    EXPECT_EQ(lab::valid_utf8("\xc0\xaf"), r + r) << "an overlong form is not UTF-8";
    EXPECT_EQ(lab::valid_utf8("\xed\xa0\x80"), r + r + r) << "a surrogate is not UTF-8";
    EXPECT_EQ(lab::valid_utf8("cut \xe2\x86"), "cut " + r + r) << "a sequence cut short at the end";
    EXPECT_EQ(lab::valid_utf8("\xf4\x90\x80\x80"), r + r + r + r) << "past U+10FFFF";
    const std::string fine = "\xc3\xa9t\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80 \x01";
    EXPECT_EQ(lab::valid_utf8(fine), fine);
    EXPECT_EQ(lab::xml_escape("\xc0<"), r + "&lt;");
}

TEST(Text, CsvFieldsRoundTrip)
{
    for (const std::string field : {"plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", ""}) {
        const auto back = lab::csv_fields(lab::csv_field(field) + ",next");
        ASSERT_EQ(back.size(), 2u) << field;
        EXPECT_EQ(back[0], field);
        EXPECT_EQ(back[1], "next");
    }
    EXPECT_EQ(lab::csv_fields("a,\"b,\"\"c\"\"\",d\r"), (std::vector<std::string>{"a", "b,\"c\"", "d"}));
    EXPECT_THROW(lab::csv_fields("a,\"open"), std::runtime_error);
}

TEST(Text, ReadFileTellsAMissingFileFromAnEmptyOne)
{
    const std::string path = ::testing::TempDir() + "lab_text_test.txt";
    std::remove(path.c_str());
    EXPECT_FALSE(lab::try_read_file(path).has_value());
    EXPECT_EQ(lab::read_file(path), "");
    std::ofstream(path, std::ios::binary) << std::string("bytes\0and more", 14);
    ASSERT_TRUE(lab::try_read_file(path).has_value());
    EXPECT_EQ(*lab::try_read_file(path), std::string("bytes\0and more", 14));
    std::remove(path.c_str());
}

// ./lab check NN --case NAME shows what the case and the kernel printed, not GoogleTest's framing
// (the output of a case of an unfinished rung, with a printf of the kernel's, as the program gives it).
TEST(Text, OneCasesOutputLosesGoogleTestsFramingAndKeepsTheKernels)
{
    const std::string printed =
        "Note: Google Test filter = Ex01/Sum.MatchesReference/int_n33_b64\n"
        "[==========] Running 1 test from 1 test suite.\n"
        "[----------] Global test environment set-up.\n"
        "[ RUN      ] Ex01/Sum.MatchesReference/int_n33_b64\n"
        "block 0 thread 3: partial 7\n"
        "../../tests/support/suite.cpp:71: Failure\n"
        "Failed\n"
        "rung 01_interleaved, case int_n33_b64: block 0 is wrong\n"
        "  expected 33, got 7\n"
        "[  FAILED  ] Ex01/Sum.MatchesReference/int_n33_b64 (0 ms)\n"
        "[----------] 1 test from Ex01/Sum (0 ms total)\n"
        "\n"
        "[----------] Global test environment tear-down\n"
        "[==========] 1 test from 1 test suite ran. (0 ms total)\n"
        "[  PASSED  ] 0 tests.\n"
        "[  FAILED  ] 1 test, listed below:\n"
        "[  FAILED  ] Ex01/Sum.MatchesReference/int_n33_b64\n"
        "\n"
        " 1 FAILED TEST\n";
    EXPECT_EQ(lab::without_gtest_framing(printed),
              "block 0 thread 3: partial 7\n"
              "rung 01_interleaved, case int_n33_b64: block 0 is wrong\n"
              "  expected 33, got 7\n");
}

}  // namespace

// A list in a sentence: all of it, or the first few and how many more.
TEST(Text, JoinedNamesTheRestByCount)
{
    EXPECT_EQ(lab::joined({}), "");
    EXPECT_EQ(lab::joined({"a", "b", "c"}), "a, b, c");
    EXPECT_EQ(lab::joined({"a", "b", "c", "d"}, 2), "a, b and 2 more");
    EXPECT_EQ(lab::joined({"a", "b"}, 2), "a, b");
}

// One reader of seeds for every command that takes one back (--seed, --sample, LAB_CASES_SEED): a
// whole number in hex or decimal that fits 64 bits, and nothing else (no sign, no spaces, no rest).
TEST(Text, ASeedIsAWholeNumberAndNothingElse)
{
    EXPECT_EQ(lab::parse_seed_text("0x4aba2d638bd3b4fc"), std::optional<std::uint64_t>(0x4aba2d638bd3b4fcull));
    EXPECT_EQ(lab::parse_seed_text("0xffffffffffffffff"), std::optional<std::uint64_t>(~std::uint64_t{0}));
    EXPECT_EQ(lab::parse_seed_text("24301"), std::optional<std::uint64_t>(24301));
    EXPECT_EQ(lab::parse_seed_text("0"), std::optional<std::uint64_t>(0));
    for (const char* wrong : {"", "-3", " 7", "7 ", "+7", "0x", "0x1g", "seed", "0x10000000000000000", "1e3", "12abc"})
        EXPECT_FALSE(lab::parse_seed_text(wrong).has_value()) << "'" << wrong << "'";
}

// One way of printing a seed (a case's, a grading's, a sample's): sixteen hexadecimal digits, read
// back as the same number.
TEST(Text, ASeedIsPrintedOneWayAndReadBack)
{
    EXPECT_EQ(lab::seed_text(0xabcd), "0x000000000000abcd");
    EXPECT_EQ(lab::seed_text(0), "0x0000000000000000");
    for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{0x4aba2d638bd3b4fcull}, ~std::uint64_t{0}})
        EXPECT_EQ(lab::parse_seed_text(lab::seed_text(seed)), std::optional<std::uint64_t>(seed)) << lab::seed_text(seed);
}
