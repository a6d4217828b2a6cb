// TRUSTED SIDE. What a grading runs beside its cases: the sanitizer category's passes
// (categories.hpp) and the lessons' measurements (lessons.hpp), neither of them timed. On a GPU a
// rung's sanitizer pass starts as soon as its cases are in (the pass counts only for a rung that
// passes every visible case), and every built rung's lessons at once (they count whatever its cases
// say, and wait for the CPU backend's build), a few rungs at a time beside the other rungs' cases.
// A pass has two halves: compute-sanitizer's tools use the GPU and end before the speed is timed;
// the thread orders and the lessons use the CPU alone, below the GPU work in priority, and go on
// beside the speed and after the GPU is let go (grade-all's other grading on the GPU takes it
// meanwhile). On the CPU backend, whose runners use every core, the passes and then the lessons run
// once every rung's cases are in, one rung at a time. What each finds goes into its rung, and is
// scored, once every rung's cases and every pass are in (finish()).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "builder.hpp"
#include "categories.hpp"
#include "gpu_lock.hpp"
#include "judge.hpp"
#include "lessons.hpp"
#include "result.hpp"
#include "rubric.hpp"

namespace lab::grading {

class BesideCases {
public:
    // `g.rungs` must say already which rungs are built and which reused; nothing runs before the
    // first cases_ended() on the CPU backend.
    BesideCases(Grade& g, const Rubric& rubric, const Built& built,
                const std::map<std::string, std::vector<PlannedCase>>& planned, CpuOrdersBuild& cpu_orders,
                const Limits& limits, int jobs, const std::string& work, GpuShare& share);
    // From the thread that ran them, once rung k's cases are in and scored: on a GPU its sanitizer
    // pass starts, where it gets one.
    void cases_ended(std::size_t k);
    // On a GPU, once rung k's cases ran again with the GPU alone (main.cpp; the tools have ended):
    // its tools run again, here, where it gets a pass, and its thread orders start, where they
    // had not (its cases failed the first time).
    void cases_again(std::size_t k);
    // What rung k's tools found (once they have ended).
    const SanitizerResult& tools(std::size_t k) const { return passes_[k].tools; }
    // Once every rung's cases are in: on a GPU, waits for the sanitizer's tools, the last of the
    // grading's work on the GPU before its speed; nothing on the CPU backend.
    void gpu_passes_ended();
    // Once the speed is timed and the GPU let go (or every rung's cases are in, on the CPU backend):
    // runs what the CPU backend left for now, waits for every pass, puts each into its rung, and
    // writes the grading's phases sanitizer, lessons and sanitizer_cpu_build (spans beside the
    // cases). The CPU backend's build is over when it returns.
    void finish();

private:
    using Clock = std::chrono::steady_clock;
    struct Span {
        std::optional<Clock::time_point> from, to;
    };
    struct Passes {
        SanitizerResult tools, orders;
        LessonResult lessons;
        Span sanitizer;  // from the start of the first half to the end of the last: set once one ran
        std::optional<double> lessons_seconds;  // once run
    };
    // One half of rung k's sanitizer pass, into its Passes, spanned.
    void sanitizer_half(std::size_t k, SanitizerPasses::Half half);
    void spanned(Span& span, Clock::time_point started);

    Grade& g_;
    const Built& built_;
    CpuOrdersBuild& cpu_orders_;
    GpuShare& share_;  // held by each rung's tools while they run
    bool gpu_;
    SanitizerPasses sanitizer_;
    Lessons lessons_;
    std::vector<Passes> passes_;
    std::mutex spans_;
    Span sanitizer_span_, lessons_span_;
    // Declared last, so that they stop (waiting for what runs) before anything above goes.
    Beside tool_passes_, order_passes_, lesson_passes_;
};

}  // namespace lab::grading
