// An honest block sum and a caching one, bound to the kit's entry shape (see caching_kernels.cu).
#pragma once

#include "lab/registry.hpp"
#include "lab/rung.hpp"

const lab::RungBinding& honest_binding();
const lab::RungInfo& honest_info();
const lab::RungBinding& caching_binding();
const lab::RungInfo& caching_info();
// A dot product of rows, honest and caching, to run with the row rung's RungInfo.
const lab::RungBinding& honest_rows_binding();
const lab::RungBinding& caching_rows_binding();
