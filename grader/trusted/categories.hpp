// TRUSTED SIDE. The grading's categories (category.hpp), one file each under categories/, in the
// order their parts appear in every report; and what of each the kit's tests call directly.
#pragma once

#include <memory>
#include <vector>

#include "category.hpp"
#include "result.hpp"
#include "rubric.hpp"

// The list: one line a category, its factory make_NAME_category() defined in categories/NAME.cpp.
#define LAB_GRADING_CATEGORIES(X) \
    X(cases)                      \
    X(speed)                      \
    X(sanitizer)                  \
    X(lessons)

namespace lab::grading {

#define LAB_DECLARE_CATEGORY(name) std::unique_ptr<Category> make_##name##_category();
LAB_GRADING_CATEGORIES(LAB_DECLARE_CATEGORY)
#undef LAB_DECLARE_CATEGORY

// A fresh object of every category, in the list's order.
std::vector<std::unique_ptr<Category>> grading_categories();

// Every part of the rung, afresh, by every category in turn (`speed`: the speed's verdict, on a GPU;
// nullptr: not measured).
void score_rung(RungResult& rung, const Rubric& rubric, bool gpu, const SpeedVerdict* speed = nullptr);

// cases (categories/cases.cpp): the visible and hidden parts.
// speed (categories/speed.cpp):
// Whether the rung has a speed part judged in this grading: the rubric gives it speed points, it
// built and was graded here (not reused), and the kit's speed plan has cases for it.
bool speed_graded_here(const RungResult& rung, const Rubric& rubric);
// ... and its kernels are timed: every visible case passed (speed counts only then).
bool speed_timed(const RungResult& rung, const Rubric& rubric);
// Whether any rung of the grading is timed. Where none is and no rung runs again, the grading needs
// no GPU alone: behind a kernel that holds the GPU to its case limit, it waited minutes to time nothing.
bool speed_to_time(const Grade& g, const Rubric& rubric);

// sanitizer (categories/sanitizer.cpp): its part, from rung.sanitizer: its points when the pass found
// nothing and every visible case passes; when it found something, nothing, less the rubric's
// penalty (never below zero for the rung).
void score_sanitizer(RungResult& rung, const Rubric& rubric);

// lessons (categories/lessons.cpp): the technique part (the rubric's [[lessons.technique]] criteria
// for the rung; none: no part): each criterion's points where its lesson number is within its bound
// and every visible case passes.
void score_technique(RungResult& rung, const Rubric& rubric);

}  // namespace lab::grading
