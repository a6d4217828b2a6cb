// Rung 06_complete_unroll: every case of the catalogue it supports.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex06);
