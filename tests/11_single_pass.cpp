// Rung 11_single_pass: every case of the catalogue it supports, once per scheme.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex11);
