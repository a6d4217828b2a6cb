// Rung 10_any_length: every case of the catalogue it supports, once per scheme.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex10);
