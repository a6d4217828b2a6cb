// TRUSTED SIDE. What a caller of the judge's checker allows its runners (checker.hpp): the time a
// case and a rung may take, the hang rule, how each runner is confined, and whose limits they are.
#pragma once

#include <string>

#include "confinement.hpp"
#include "lab/exit_status.hpp"

namespace lab::judge {

struct Limits {
    double case_seconds = 60, rung_seconds = 600;
    int hung_before_giving_up = lab::exit_status::kHangsBeforeStopping;  // the kit's one rule
    int check_threads = 1;  // cases checked at once, once the runner is done
    // Runners that share one rung's cases, side by side, each in a process and folder of its own (the
    // grader on a GPU, for a rung with most of a grading's work: its cases would otherwise end long
    // after every other rung's). The cases, their inputs and verdicts are the same however many (the
    // hang rule counts stops in the rung's order of cases, whichever runner had them).
    int runners = 1;
    RunnerLimits runner;    // each runner's CPU time, files, processes and memory
    Confine confine;        // how each runner is confined: required (there is no unconfined run)
    // Whose limits these are, as the messages of a case stopped at one say: the grader's rubric,
    // or the kit's own on a student's machine (the suites).
    std::string whose = "the rubric's";
};

}  // namespace lab::judge
