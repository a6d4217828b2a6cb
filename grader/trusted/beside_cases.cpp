// TRUSTED SIDE. See beside_cases.hpp.
#include "beside_cases.hpp"

#include <algorithm>
#include <thread>
#include <utility>

#include "lab/device.hpp"
#include "lab/process.hpp"

namespace lab::grading {

namespace {

// The sanitizer's and the lessons' limits: their checks share the cores among the passes at once.
Limits with_threads(Limits limits, int at_once)
{
    limits.check_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / at_once);
    return limits;
}

constexpr int kPassesAtOnce = 4, kLessonsAtOnce = 2;  // on a GPU; one at a time on the CPU backend

}  // namespace

BesideCases::BesideCases(Grade& g, const Rubric& rubric, const Built& built,
                         const std::map<std::string, std::vector<PlannedCase>>& planned, CpuOrdersBuild& cpu_orders,
                         const Limits& limits, int jobs, const std::string& work, GpuShare& share)
    : g_(g), built_(built), cpu_orders_(cpu_orders), share_(share), gpu_(!lab::device_status().emulated),
      sanitizer_(rubric, built, planned, cpu_orders, with_threads(limits, gpu_ ? kPassesAtOnce : 1), work),
      lessons_(rubric, g.rungs,
               [this] {
                   Explainers where;
                   if (!gpu_) {
                       where.programs = built_.explainers;
                       where.tree = grading_build_dir();
                   } else {
                       double unused = 0;
                       where.programs = cpu_orders_.wait(where.missing, unused).explainers;
                       where.tree = cpu_orders_.tree();
                   }
                   return where;
               },
               with_threads(limits, gpu_ ? kPassesAtOnce : 1), jobs, work),
      passes_(g.rungs.size()),
      // None reads the rung's result, which its cases or its speed may be writing meanwhile. Each
      // half has a pool of its own: the thread orders and the lessons wait for the CPU backend's
      // build, and the tools, which hold the speed back, must not wait behind them.
      tool_passes_(gpu_ ? kPassesAtOnce : 1, [this](std::size_t k) { sanitizer_half(k, SanitizerPasses::Half::tools); }),
      order_passes_(gpu_ ? kPassesAtOnce : 1,
                    [this](std::size_t k) {
                        if (gpu_) below_the_gpu_work();
                        sanitizer_half(k, SanitizerPasses::Half::orders);
                    }),
      lesson_passes_(gpu_ ? kLessonsAtOnce : 1, [this](std::size_t k) {
          if (gpu_) below_the_gpu_work();
          const lab::process::Account account("lessons");
          const Clock::time_point started = Clock::now();
          passes_[k].lessons_seconds = lessons_.measure(g_.rungs[k].id, passes_[k].lessons);
          spanned(lessons_span_, started);
      })
{
    if (gpu_)
        for (std::size_t k = 0; k < g.rungs.size(); ++k)
            if (lessons_.wanted(g.rungs[k])) lesson_passes_.add(k);
}

void BesideCases::sanitizer_half(std::size_t k, SanitizerPasses::Half half)
{
    const lab::process::Account account(half == SanitizerPasses::Half::tools ? "sanitizer_tools" : "thread_orders");
    const Clock::time_point started = Clock::now();
    Passes& p = passes_[k];
    // compute-sanitizer's tools run kernels on the GPU: shared, a rung at a time (the share takes
    // nothing when they run again with the GPU alone, or on the CPU backend); the thread orders use
    // the CPU alone.
    const GpuShare::Hold hold = half == SanitizerPasses::Half::tools ? share_.hold() : GpuShare::Hold{};
    sanitizer_.run(g_.rungs[k].id, half, half == SanitizerPasses::Half::tools ? p.tools : p.orders);
    spanned(p.sanitizer, started);
    spanned(sanitizer_span_, started);
}

void BesideCases::spanned(Span& span, Clock::time_point started)
{
    const std::lock_guard<std::mutex> lock(spans_);
    if (!span.from || started < *span.from) span.from = started;
    const Clock::time_point now = Clock::now();
    if (!span.to || now > *span.to) span.to = now;
}

void BesideCases::cases_ended(std::size_t k)
{
    if (!gpu_ || !sanitizer_.wanted(g_.rungs[k])) return;
    tool_passes_.add(k);
    order_passes_.add(k);
}

void BesideCases::cases_again(std::size_t k)
{
    if (!gpu_ || !sanitizer_.wanted(g_.rungs[k])) return;
    passes_[k].tools = SanitizerResult{};
    sanitizer_half(k, SanitizerPasses::Half::tools);
    order_passes_.add(k);  // (nothing when it was added before)
}

void BesideCases::gpu_passes_ended()
{
    if (gpu_) tool_passes_.finish();
}

void BesideCases::finish()
{
    if (!gpu_)
        for (std::size_t k = 0; k < g_.rungs.size(); ++k)
            if (sanitizer_.wanted(g_.rungs[k])) tool_passes_.add(k), order_passes_.add(k);
    tool_passes_.finish();
    order_passes_.finish();
    if (!gpu_)
        for (std::size_t k = 0; k < g_.rungs.size(); ++k)
            if (lessons_.wanted(g_.rungs[k])) lesson_passes_.add(k);
    lesson_passes_.finish();
    const auto seconds = [](const Span& s) { return std::chrono::duration<double>(*s.to - *s.from).count(); };
    for (std::size_t k = 0; k < g_.rungs.size(); ++k) {
        RungResult& r = g_.rungs[k];
        Passes& p = passes_[k];
        if (p.sanitizer.from) {
            append(p.tools, std::move(p.orders));
            sanitizer_.keep(r, std::move(p.tools), seconds(p.sanitizer));
        }
        if (p.lessons_seconds) lessons_.keep(r, std::move(p.lessons), *p.lessons_seconds);
    }
    sanitizer_.finish(g_);
    cpu_orders_.finish();
    if (sanitizer_span_.from) g_.phases["sanitizer"] = seconds(sanitizer_span_);
    if (lessons_span_.from) g_.phases["lessons"] = seconds(lessons_span_);
}

}  // namespace lab::grading
