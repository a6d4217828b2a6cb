// TRUSTED SIDE. See categories.hpp.
#include "categories.hpp"

namespace lab::grading {

std::vector<std::unique_ptr<Category>> grading_categories()
{
    std::vector<std::unique_ptr<Category>> all;
#define LAB_MAKE_CATEGORY(name) all.push_back(make_##name##_category());
    LAB_GRADING_CATEGORIES(LAB_MAKE_CATEGORY)
#undef LAB_MAKE_CATEGORY
    return all;
}

void score_rung(RungResult& rung, const Rubric& rubric, bool gpu, const SpeedVerdict* speed)
{
    if (speed) rung.speed = *speed;
    else rung.speed.reset();
    rung.parts.clear();
    for (const auto& category : grading_categories()) category->score(rubric, gpu, rung);
}

}  // namespace lab::grading
