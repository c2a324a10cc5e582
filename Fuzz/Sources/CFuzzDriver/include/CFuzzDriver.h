#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver for programs with their own main (LLVM libFuzzer documentation, "Using
/// libFuzzer as a library"). The fuzz targets are SwiftPM executables, whose main SwiftPM renames
/// and aliases, which clashes with the main that -sanitize=fuzzer links; so they link libFuzzer's
/// no-main runtime and call this from their @main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
