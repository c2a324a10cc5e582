// Header-only module: LLVMFuzzerRunDriver lives in libclang_rt.fuzzer_no_main (linked by run.sh).
#include "CFuzzDriver.h"
