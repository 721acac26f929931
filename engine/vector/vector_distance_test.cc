#include "engine/vector/vector_distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace ddb {
namespace {

// Every length from 0 to 70 covers each kernel's 16-, 8- and 1-float steps and their tails.
TEST(VectorDistance, KernelsMatchDoubleSums) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (size_t n = 0; n <= 70; ++n) {
    std::vector<float> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = value(rng);
      b[i] = value(rng);
    }
    double l2 = 0, ip = 0;
    for (size_t i = 0; i < n; ++i) {
      l2 += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
      ip += double{a[i]} * b[i];
    }
    EXPECT_NEAR(SquaredL2(a.data(), b.data(), n), l2, 1e-4 * (1 + l2)) << n;
    EXPECT_NEAR(InnerProduct(a.data(), b.data(), n), ip, 1e-4 * (1 + std::abs(ip))) << n;
  }
}

TEST(VectorDistance, UnalignedInputs) {
  std::vector<float> buffer(200);
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<float>(i % 7) - 3;
  const float* a = buffer.data() + 1;
  const float* b = buffer.data() + 3;
  double ip = 0;
  for (size_t i = 0; i < 128; ++i) ip += double{a[i]} * b[i];
  EXPECT_FLOAT_EQ(InnerProduct(a, b, 128), static_cast<float>(ip));
  EXPECT_FLOAT_EQ(SquaredL2(a, a, 128), 0.0f);
}

}  // namespace
}  // namespace ddb
