// Rung 08_warp_shuffle: every case of the catalogue it supports.
#include "support/suite.hpp"

LAB_CATALOGUE_SUITES(Ex08);
