// Rung 07_coarsening: every case of the catalogue it supports.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex07);
