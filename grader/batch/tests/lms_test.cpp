// Kit.Batch.Lms*: grade-all's LMS export (grader/batch/lms.hpp) from a gradebook written here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "lab/text.hpp"
#include "lms.hpp"

namespace {

namespace fs = std::filesystem;
using lab::batch::export_lms;

class Lms : public ::testing::Test {
protected:
    void SetUp() override
    {
        out = (fs::temp_directory_path() / ("lms-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                  .string();
        fs::remove_all(out);
        fs::create_directories(out);
        // grade-all's gradebook: a graded student, one whose grading failed, one graded but in no roster.
        write(out + "/gradebook.csv",
              "student,status,total,max,01_interleaved,seed\n"
              "ana,graded,96.50,132.00,9.00,0x1\n"
              "broken,\"not graded: lab-grade exited with 2 (cannot open the archive, a.zip)\",,,,\n"
              "stray,graded,12.00,132.00,1.00,0x3\n");
    }
    void TearDown() override { fs::remove_all(out); }
    static void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::trunc) << text; }
    std::string roster(const std::string& text)
    {
        write(out + "/roster.csv", text);
        return out + "/roster.csv";
    }
    std::string error_of(const std::string& roster_text)
    {
        try {
            export_lms(out, roster(roster_text), "Lab 3");
        } catch (const std::exception& e) {
            return e.what();
        }
        return "";
    }
    std::string out;
};

TEST_F(Lms, CanvasAndMoodleRowsForEveryRosterStudent)
{
    const auto done = export_lms(out,
                                 roster("student,name,email,canvas_id,sis_user_id,sis_login_id,section,idnumber\n"
                                        "ana,\"Ibáñez, Ana\",ana@uni.example,1001,S1,ana.i,A,77\n"
                                        "ben,Ben Ng,ben@uni.example,1002,S2,ben.n,B,78\n"
                                        "broken,Bo Ken,bo@uni.example,1003,S3,bo.k,A,79\n"),
                                 "Lab 3");
    ASSERT_EQ(done.written.size(), 2u);
    EXPECT_EQ(lab::read_file(out + "/canvas.csv"),
              "Student,ID,SIS User ID,SIS Login ID,Section,Lab 3\n"
              "    Points Possible,,,,,132.00\n"
              "\"Ibáñez, Ana\",1001,S1,ana.i,A,96.50\n"
              "Ben Ng,1002,S2,ben.n,B,0\n"
              "Bo Ken,1003,S3,bo.k,A,\n");
    EXPECT_EQ(lab::read_file(out + "/moodle.csv"),
              "Email address,ID number,Lab 3,Lab 3 (feedback)\n"
              "ana@uni.example,77,96.50,96.50 of 132.00 points; the report: students/ana/report.html\n"
              "ben@uni.example,78,0,no submission\n"
              "bo@uni.example,79,,\"not graded: lab-grade exited with 2 (cannot open the archive, a.zip)\"\n");
    // Nothing dropped silently: the failed grading and the student missing from the roster are named.
    ASSERT_EQ(done.warnings.size(), 2u);
    EXPECT_NE(done.warnings[0].find("broken: left without a grade"), std::string::npos) << done.warnings[0];
    EXPECT_NE(done.warnings[1].find("stray: graded (12.00 of 132.00 points) but not in the roster"), std::string::npos)
        << done.warnings[1];
}

TEST_F(Lms, AFormatWhoseIdsTheRosterLacksIsLeftOutAndSaidSo)
{
    const auto done = export_lms(out, roster("student,email\nana,ana@uni.example\n"), "Lab 3");
    ASSERT_EQ(done.written.size(), 1u);
    EXPECT_EQ(done.written[0], out + "/moodle.csv");
    EXPECT_FALSE(fs::exists(out + "/canvas.csv"));
    bool said = false;
    for (const auto& w : done.warnings) said |= w.find("no canvas.csv") != std::string::npos;
    EXPECT_TRUE(said);
}

TEST_F(Lms, ARosterItCannotUseIsRefusedWithWhatIsWrong)
{
    EXPECT_NE(error_of("name,email\nAna,ana@uni.example\n").find("no \"student\" column"), std::string::npos);
    EXPECT_NE(error_of("student,name\nana,Ana\n").find("no identifier column"), std::string::npos);
    EXPECT_NE(error_of("student,email\nana,a@x\nana,b@x\n").find("student \"ana\" is on lines 2 and 3"), std::string::npos);
    EXPECT_NE(error_of("student,email\nana,a@x\nben,a@x\n").find("email \"a@x\" is on lines 2 and 3"), std::string::npos);
    EXPECT_NE(error_of("student,email\nana,a@x,extra\n").find("roster.csv:2: 3 fields"), std::string::npos);
    EXPECT_NE(error_of("student,mail\nana,a@x\n").find("unknown column \"mail\""), std::string::npos);
    EXPECT_NE(error_of("").find("is empty"), std::string::npos);
    EXPECT_NE(error_of("student,email\n,a@x\n").find("roster.csv:2: no student id"), std::string::npos);
}

TEST_F(Lms, AGradebookThatIsNotGradeAllsIsRefused)
{
    write(out + "/gradebook.csv", "name,points\nana,3\n");
    EXPECT_NE(error_of("student,email\nana,a@x\n").find("is not grade-all's gradebook"), std::string::npos);
}

}  // namespace
