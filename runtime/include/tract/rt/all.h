// tract runtime: every reference kernel (everything but io/npy.h, which
// needs the heap and stdio and is only for the optional --main driver).
#pragma once

#include "tract/rt/common.h"

#include "tract/rt/data/cast_ref.h"
#include "tract/rt/data/concat_ref.h"
#include "tract/rt/data/copy_ref.h"
#include "tract/rt/data/depth_space_ref.h"
#include "tract/rt/data/gather_ref.h"
#include "tract/rt/data/pad_ref.h"
#include "tract/rt/data/slice_ref.h"
#include "tract/rt/data/tile_ref.h"
#include "tract/rt/data/transpose_ref.h"
#include "tract/rt/data/trilu_ref.h"
#include "tract/rt/elementwise/binary_ref.h"
#include "tract/rt/elementwise/unary_ref.h"
#include "tract/rt/linalg/matmul_ref.h"
#include "tract/rt/nn/conv_ref.h"
#include "tract/rt/nn/norm_ref.h"
#include "tract/rt/nn/pool_ref.h"
#include "tract/rt/nn/softmax_ref.h"
#include "tract/rt/reduce/reduce_ref.h"
