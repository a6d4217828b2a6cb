// Kit.Batch.Workers*: how many gradings grade-all runs at once, from --workers and --per-gpu, and
// what it refuses before anything is written (grade_all.hpp, worker_count).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "grade_all.hpp"

namespace {

lab::batch::BatchOptions options(int gpus, const std::string& workers, int per_gpu = 3)
{
    lab::batch::BatchOptions o;
    for (int k = 0; k < gpus; ++k) o.gpus.push_back(std::to_string(k));
    if (workers == "gpus") o.workers_per_gpu = true;
    else o.workers = std::stoi(workers);
    o.per_gpu = per_gpu;
    return o;
}

// The message of what worker_count refuses; "" when it takes the options.
std::string refused(const lab::batch::BatchOptions& o)
{
    try {
        lab::batch::worker_count(o);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// --workers gpus: --per-gpu on each GPU, three unless it says; a number of workers, up to that many a GPU.
TEST(Workers, GpusTakesPerGpuOnEachAndANumberNoMore)
{
    EXPECT_EQ(lab::batch::worker_count(options(1, "gpus")), 3);
    EXPECT_EQ(lab::batch::worker_count(options(4, "gpus")), 12);
    EXPECT_EQ(lab::batch::worker_count(options(1, "gpus", 4)), 4);
    EXPECT_EQ(lab::batch::worker_count(options(2, "gpus", 1)), 2);
    EXPECT_EQ(lab::batch::worker_count(options(1, "4", 4)), 4);
    EXPECT_EQ(lab::batch::worker_count(options(0, "2")), 2) << "the CPU backend: a number of workers";
    EXPECT_NE(refused(options(1, "4")).find("use --workers 3 or fewer"), std::string::npos) << refused(options(1, "4"));
    EXPECT_NE(refused(options(2, "5", 2)).find("--per-gpu"), std::string::npos) << refused(options(2, "5", 2));
}

// What cannot be had is refused with what to do, whatever the GPUs.
TEST(Workers, RefusesWhatCannotBeHad)
{
    EXPECT_NE(refused(options(0, "gpus")).find("no GPU here"), std::string::npos);
    EXPECT_NE(refused(options(0, "0")).find("from 1 to 64"), std::string::npos);
    EXPECT_NE(refused(options(0, "65")).find("from 1 to 64"), std::string::npos);
    EXPECT_NE(refused(options(1, "gpus", 0)).find("--per-gpu 0: from 1 to 8"), std::string::npos) << refused(options(1, "gpus", 0));
    EXPECT_NE(refused(options(1, "gpus", 9)).find("--per-gpu 9: from 1 to 8"), std::string::npos);
    EXPECT_EQ(refused(options(8, "gpus", 8)), "") << "8 GPUs of 8 workers: 64";
}
