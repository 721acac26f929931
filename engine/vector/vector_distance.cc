#include "engine/vector/vector_distance.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ddb {
namespace {

// Eight partial sums, which the compiler keeps in SIMD registers (a single running sum would
// be a serial chain: floating-point addition is not reassociated without -ffast-math).
float SquaredL2Portable(const float* a, const float* b, size_t n) {
  float acc[8] = {};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (size_t j = 0; j < 8; ++j) {
      const float d = a[i + j] - b[i + j];
      acc[j] += d * d;
    }
  }
  for (; i < n; ++i) acc[0] += (a[i] - b[i]) * (a[i] - b[i]);
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

float InnerProductPortable(const float* a, const float* b, size_t n) {
  float acc[8] = {};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (size_t j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
  }
  for (; i < n; ++i) acc[0] += a[i] * b[i];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Two accumulators of eight lanes: FMA's latency is hidden behind the second chain.
__attribute__((target("avx2,fma"))) float SquaredL2Avx2(const float* a, const float* b, size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    s0 = _mm256_fmadd_ps(d, d, s0);
  }
  float sum = HorizontalSum(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

__attribute__((target("avx2,fma"))) float InnerProductAvx2(const float* a, const float* b,
                                                           size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
  }
  for (; i + 8 <= n; i += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  }
  float sum = HorizontalSum(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

bool HasAvx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#else
bool HasAvx2() { return false; }
#endif

using Kernel = float (*)(const float*, const float*, size_t);

struct Kernels {
  bool avx2;
  Kernel squared_l2;
  Kernel inner_product;
};

Kernels Choose() {
#if defined(__x86_64__)
  if (HasAvx2()) return Kernels{true, SquaredL2Avx2, InnerProductAvx2};
#endif
  return Kernels{false, SquaredL2Portable, InnerProductPortable};
}

const Kernels& Chosen() {
  static const Kernels kernels = Choose();
  return kernels;
}

}  // namespace

float SquaredL2(const float* a, const float* b, size_t n) { return Chosen().squared_l2(a, b, n); }

float InnerProduct(const float* a, const float* b, size_t n) {
  return Chosen().inner_product(a, b, n);
}

bool VectorKernelsUseAvx2() { return Chosen().avx2; }

}  // namespace ddb
