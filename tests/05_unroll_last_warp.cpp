// Rung 05_unroll_last_warp: every case of the catalogue it supports.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex05);
