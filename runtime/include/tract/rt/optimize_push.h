// tract runtime: the kernels' optimisation level, raised under GCC.
//
// Generated code includes this first and tract/rt/optimize_pop.h after its
// last kernel. Firmware builds use -O2 or -Os, and there GCC 12 vectorises a
// loop only when its trip count is a known multiple of the vector width (its
// "very cheap" cost model) and inlines little: the kernels' loops take their
// counts at run time, so MobileNetV2 ran 7x slower at -O2 than at -O3
// (42 ms against 6). Between push and pop every function is compiled as at
// -O3, whatever the build's level; the model's code grows by tens to a few
// hundred KB (the weights, usually far larger, do not change). Only where
// there are vector units (SSE2 and up, NEON): a microcontroller's -Os build
// (Cortex-M) has nothing to vectorise and every byte of flash counts. clang
// vectorises at -O2 without this. Debug builds keep their level: -O0, and
// AddressSanitizer builds (GCC at -O3 with ASan and UBSan instrumentation
// compiled SqueezeNet for over ten minutes). Defining
// TRACT_RT_KEEP_OPT_LEVEL keeps the build's level everywhere.
//
// On x86 the region is also tuned as -mtune=generic (the ISA stays the
// build's -march), with 512-bit vectors preferred where AVX-512 is on. The
// kernels are written for full-width vectors moved by plain loads and
// stores; the tunings -march=native picks on recent Intel cores (GCC 12:
// rocketlake on a Sapphire Rapids VM) instead copy a 64-byte std::memcpy
// with `rep movsb` (prefer_known_rep_movsb_stosb; at -Os every fixed-size
// copy goes that way), vectorise the compiler's own loops 256 bits wide
// and with gathers. Measured there, one thread: MobileNetV2 5.49 -> 4.54
// ms at -O3, and at -Os 6.86 -> 4.56 (KWS 0.071 -> 0.045: 1.34x its -O3
// time before, 1.0x after). Only a tuning changes: the code runs on every
// CPU the build's -march allows. (Functions defined outside the region do
// not inline into it, a different tuning being a different target; the
// runtime calls none in its loops.)
//
// No include guard: each include opens one push_options region.
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) &&                  \
    (defined(__SSE2__) || defined(__ARM_NEON)) && !defined(__SANITIZE_ADDRESS__) &&        \
    !defined(TRACT_RT_KEEP_OPT_LEVEL)
#pragma GCC push_options
#pragma GCC optimize("O3")
#if defined(__x86_64__) && defined(__AVX512F__)
#pragma GCC target("tune=generic", "prefer-vector-width=512")
#elif defined(__x86_64__)
#pragma GCC target("tune=generic")
#endif
#define TRACT_RT_RAISED_OPT_LEVEL 1 // optimize_pop.h closes the region
#endif
