// general_text and fixed_text write what printf's %.Ng and %.Nf write (the C library here is
// the reference: the explanations they build once read exactly so).
#include "util/number_text.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

namespace {

std::string printed(const char* format, int precision, double value) {
  char buffer[512];
  std::snprintf(buffer, sizeof(buffer), format, precision, value);
  return buffer;
}

TEST_CASE("general_text and fixed_text read as printf's %.Ng and %.Nf") {
  std::vector<double> values = {0.0,   -0.0,   1.0,    0.5,     0.125,  1e-7, 1.5e-6, 123456.0,
                                1e15,  1e16,   1e21,   9.9995,  0.99995, 2.5,  3.5,    1e300,
                                1e-300, 4.9e-324, 1.7e308, 0.87,   0.95,   1.8e-6,
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> exponent(-30, 30);
  for (int k = 0; k < 2000; ++k) values.push_back(std::pow(10.0, exponent(random)));
  for (double v : values) {
    for (int precision : {0, 1, 2, 3, 4, 6, 17}) {
      INFO(v << " precision " << precision);
      CHECK(hloroof::util::general_text(v, precision) == printed("%.*g", precision, v));
      CHECK(hloroof::util::fixed_text(v, precision) == printed("%.*f", precision, v));
    }
  }
}

}  // namespace
