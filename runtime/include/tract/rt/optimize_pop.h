// tract runtime: closes the region tract/rt/optimize_push.h opened, if it
// opened one.
//
// No include guard: each include closes one push_options region.
#if defined(TRACT_RT_RAISED_OPT_LEVEL)
#pragma GCC pop_options
#undef TRACT_RT_RAISED_OPT_LEVEL
#endif
