// tract runtime: closes the region tract/rt/optimize_push.h opened.
//
// No include guard: each include closes one push_options region.
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) &&                  \
    !defined(TRACT_RT_KEEP_OPT_LEVEL)
#pragma GCC pop_options
#endif
