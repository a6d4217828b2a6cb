// Rung 09_max: every case of the catalogue it supports.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex09);
