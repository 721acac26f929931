// The float32 kernels of vector indexes: squared L2 distance and inner product, for the exact
// scan and for the HNSW graph (as hnswlib spaces). On x86-64 an AVX2+FMA version is chosen
// once at run time when the CPU has it, so the binary stays at the x86-64 baseline (hnswlib's
// own kernels are chosen at compile time and would be SSE only there).
// Thread safety: pure functions.
#pragma once

#include <cstddef>

namespace ddb {

float SquaredL2(const float* a, const float* b, size_t n);
float InnerProduct(const float* a, const float* b, size_t n);
// Whether the AVX2+FMA kernels are in use (for the benchmark's report).
bool VectorKernelsUseAvx2();

}  // namespace ddb
