/* The block shapes of the FP32 lab's step 13: the build variables that choose them.
 *
 * solutions/matmul/13-tuned.cu writes its kernel once, for any block shape (struct
 * shape, below), and its launch picks one of three per problem: the large tile, the
 * small tile where the large ones are too few to go round the SMs, and the fit tile
 * where one wave of them fills the GPU. The defaults are the shapes measured fastest
 * (the step's header says where); each is a -D build variable, as the step's header
 * lists them, so a sweep (harness/labs/matmul/sweep-13.sh) tries others without
 * editing code. Kept apart from the step so that it reads as its kernel; the handout
 * leaves it out with the solutions. CUDA C++, included by that step only. */
#ifndef LAB_MATMUL_TUNED_SHAPES_CUH
#define LAB_MATMUL_TUNED_SHAPES_CUH

/* The large tile, the shape of the whole sequence's last step (build variables). */
#ifndef BM
#define BM 128 /* rows of C per block */
#endif
#ifndef BN
#define BN 256 /* columns of C per block */
#endif
#ifndef TM
#define TM 8 /* rows of C per thread: TM / 4 blocks of 4 */
#endif
#ifndef TN
#define TN 16 /* columns of C per thread: TN / 4 blocks of 4 */
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1 /* blocks per SM the register budget must allow */
#endif
/* The small tile, for problems with too few large tiles to go round the SMs: 64x64,
 * 8x4 per thread, 4 warps, 4 blocks per SM. The fastest of seven shapes and schedules
 * tried at 1024^3 and 1023x1025x999 on the H100 (data/sweeps/README.md). */
#ifndef SMALL_BM
#define SMALL_BM 64
#endif
#ifndef SMALL_BN
#define SMALL_BN 64
#endif
#ifndef SMALL_TM
#define SMALL_TM 8
#endif
#ifndef SMALL_TN
#define SMALL_TN 4
#endif
#ifndef SMALL_MIN_BLOCKS
#define SMALL_MIN_BLOCKS 4
#endif
/* 1: the small tile when the large tiles number fewer than half the SMs; 0: never;
 * 2: always (to measure either shape at any size). */
#ifndef SMALL_TILES
#define SMALL_TILES 1
#endif
/* 1: where the small tile would be used and tiles of FIT_BM x FIT_BN (8x8 per thread,
 * 128 threads) make one wave of one tile per SM (at most the SMs, at least
 * FIT_MIN_PCT percent of them; 1024^3: 128 tiles of 64x128 for 132 SMs), those tiles,
 * one block per tile, no shares: each SM does one tile's work. Only where C is stored
 * float4 by float4 (one pair of kernels fewer). 0: never. */
#ifndef FIT_TILE
#define FIT_TILE 1
#endif
#ifndef FIT_BM
#define FIT_BM 64
#endif
#ifndef FIT_BN
#define FIT_BN 128
#endif
#ifndef FIT_MIN_PCT
#define FIT_MIN_PCT 75
#endif
/* All shapes */
#ifndef BK
#define BK 16
#endif
#ifndef STAGES
#define STAGES 4
#endif
/* The row of a slice after whose FFMAs the large tile starts the refill copies of a
 * later slice (-1: right after the slice's barrier, as the small and fit tiles do):
 * the FFMAs of rows 0 .. COPY_AT then follow the barrier at once, and the copies'
 * address arithmetic falls among FFMAs instead of between the barrier and the first
 * of them (data/sweeps/README.md: matmul-13-copy-at.csv). */
#ifndef COPY_AT
#define COPY_AT 4
#endif
#ifndef SMALL_COPY_AT
#define SMALL_COPY_AT -1
#endif
#if COPY_AT >= BK || SMALL_COPY_AT >= BK
#error "COPY_AT and SMALL_COPY_AT must be less than BK (-1: right after the barrier)"
#endif
#ifndef LM
#define LM 4 /* lanes of a warp along m; 32 / LM along n (8: as steps 09-12) */
#endif
#define LN (32 / LM)
#define A_PAD 4
#if STAGES < 3
/* Two stages gave wrong results on the 16-byte path in the H100 tests (3 and 4 pass
 * every check and compute-sanitizer); not understood yet: at least 3 buffers. */
#error "STAGES must be at least 3"
#endif
#if BK % 8 != 0
#error "BK must be a multiple of 8"
#endif

/* One block shape and everything that follows from it. The kernel is written once,
 * for any shape; the launch picks one per problem. */
template <int BM_, int BN_, int TM_, int TN_, int MIN_BLOCKS_, int COPY_AT_>
struct shape {
    static constexpr int bm = BM_, bn = BN_;         /* the block's tile of C */
    static constexpr int copy_at = COPY_AT_;          /* refill after this row (-1: at the barrier) */
    static constexpr int tm = TM_, tn = TN_;         /* one thread's, in blocks of 4 */
    static constexpr int min_blocks = MIN_BLOCKS_;   /* per SM, for __launch_bounds__ */
    static constexpr int wm = tm * LM, wn = tn * LN; /* one warp's */
    static constexpr int threads = (bm / wm) * (bn / wn) * 32;
    static constexpr int a_stage = BK * (bm + A_PAD); /* floats of one A buffer, transposed */
    static constexpr int b_stage = BK * bn;           /* floats of one B buffer: [BK][bn] */
    static constexpr int smem_bytes = STAGES * (a_stage + b_stage) * (int)sizeof(float);
    static constexpr int tile_floats = bm * bn; /* one partial tile in the workspace */
    static constexpr int a_rs = threads / 8;        /* rows of A between one thread's copies */
    static constexpr int b_rs = threads / (bn / 4); /* rows of B between one thread's copies */
    /* float4 loads in flight per thread while the last block adds a tile's shares */
    static constexpr int sum_quads = tile_floats / 4 / threads < 16 ? tile_floats / 4 / threads : 16;
    static_assert(bm % wm == 0 && bn % wn == 0 && tm % 4 == 0 && tn % 4 == 0,
                  "the warp tile must divide the block tile, the thread tile be 4x4 blocks");
    static_assert(bm % a_rs == 0 && threads % (bn / 4) == 0 && BK % b_rs == 0,
                  "the copy layout needs bm % (threads/8) == 0 and threads % (bn/4) == 0");
    static_assert(tile_floats / 4 % (sum_quads * threads) == 0,
                  "a tile must be a whole number of sum_quads float4 per thread");
};
typedef shape<BM, BN, TM, TN, MIN_BLOCKS, COPY_AT> large;
typedef shape<SMALL_BM, SMALL_BN, SMALL_TM, SMALL_TN, SMALL_MIN_BLOCKS, SMALL_COPY_AT> small;
#if FIT_TILE
typedef shape<FIT_BM, FIT_BN, 8, 8, 2, SMALL_COPY_AT> fit;
#endif

#endif
