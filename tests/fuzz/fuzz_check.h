// A property check for fuzz targets: a failed one aborts, so that libFuzzer keeps the input
// as a crash artifact, with what went wrong on stderr.
#pragma once

#include <cstdio>
#include <cstdlib>

#define DDB_FUZZ_CHECK(condition)                                                             \
  do {                                                                                        \
    if (!(condition)) {                                                                       \
      std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)
