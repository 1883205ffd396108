/* Step 10: clusters of two blocks share the A tile through TMA multicast (sm_90a).
 * Guide: labs/matmul_tf32/README.md#step-10--multicast
 *
 * What changed from step 09: blocks are launched in clusters of two that work side by
 * side on the same 256 rows of C (tiles n and n + 1 of one tile row), so both need
 * the same A tile at every K-slice. Instead of each loading all of it, each block's
 * producer loads one half (128 rows) with the multicast form of TMA
 * (cp.async.bulk.tensor ... .multicast::cluster, a mask of both blocks): one read from
 * L2 lands in the shared memory of both blocks, and signals its bytes on the full
 * barrier at the same offset in each. A stage's bytes are still 48 KB per block, but
 * each producer asks L2 for 32 KB of them.
 *   The price is coupling. A producer may multicast into a stage only when the
 * consumers of both blocks have released it, so each empty barrier counts four
 * arrivals, and each consumer arrives on its own block's and on the partner's
 * (mapa + mbarrier.arrive.shared::cluster). Barriers are initialized before a cluster
 * barrier (barrier.cluster.arrive/wait), and the blocks wait for each other at the end
 * too, so that no block exits while its partner may still arrive on its barriers.
 *   The two blocks of a cluster walk the same cluster tiles (256 x 256 of C) in
 * grouped order; where the tile columns are odd in number, the last pair's second
 * block still loads its half of A for its partner, computes on B's zeros (its boxes
 * lie past the matrix: TMA fills them) and stores nothing.
 * The grid is the fewest clusters that take as many rounds of cluster tiles as all
 * that fit at once would (cudaOccupancyMaxActiveClusters), launched with
 * cudaLaunchKernelEx and a cluster-dimension attribute.
 *
 * Why: with the transpose gone (step 09), the tensor pipe is busy most of the time
 * and what remains is feeding it: every block reads 48 KB from L2 per slice, and the
 * H100 runs this product at its power limit, where every byte moved costs clock.
 * cuBLAS's TF32 kernel (ncu: grid 66 x 2, fewer L2 bytes than 09) does the same.
 *
 * What to expect: fewer L2 bytes than 09 in ncu (lts__t_bytes.sum), and the same
 * registers, shared memory and blocks per SM. At 4096^3 and 8192^3 about as fast
 * as 09 (a difference of the size of the spread between runs: the tensor pipe was
 * already busy); clearly faster at 4097^3, most likely because a row of A does not
 * start on 128 bytes there (k not a multiple of 32), so each of A's TMA rows touches
 * two L2 lines and halving the requests for A pays twice. Slightly slower than 09 at
 * 2048^3 and below, where a cluster's two blocks wait for each other with little to
 * hide it.
 * In the SASS: UTMALDG with the MULTICAST flag, SYNCS.ARRIVE.TRANS64.RED (the remote
 * arrivals), UCGABAR_ARV / UCGABAR_WAIT (the cluster barrier).
 *
 * Run: make run LAB=matmul_tf32 STEP=10 */
#include "matmul.h"
#include "step_kernel.h"
#include "tf32_hopper.cuh"

/* The #ifndef choices below are other builds for instructors' sweeps
 * (make "matmul_tf32_10-multicast_NVCCFLAGS=-DCLUSTER=4" ...); the defaults are what the
 * chapter teaches. */
#define BM 256               /* rows of C: wgmma's N side, from A's descriptor */
#define BN 128               /* columns of C: 2 consumer warpgroups x wgmma's 64 M rows */
#ifndef CLUSTER
#define CLUSTER 2            /* blocks side by side along n, sharing the A tile */
#endif
#define BK TF32_SLICE_FLOATS
#define STAGES 4
#define CONSUMERS 2
#define THREADS (128 * (CONSUMERS + 1))
#ifndef GROUP_M
#define GROUP_M 8            /* tile rows walked down before moving one tile right */
#endif
#ifndef PRODUCER_REGISTERS
#define PRODUCER_REGISTERS 40
#endif
#ifndef CONSUMER_REGISTERS
#define CONSUMER_REGISTERS 232 /* 40 x 128 + 232 x 256 = 168 x 384: the block's share */
#endif
/* BALANCED_GRID 1: launch the fewest clusters that still finish in as many rounds of
 * cluster tiles as all that fit would (at 4096^3 and 8192^3 on 132 SMs: 64 clusters,
 * each with the same number of tiles, instead of 66 of which 8 or 32 idle in the last
 * round): the SMs left out idle from the start, which under the power limit buys the
 * others clock (the chapter's table). 0: as many clusters as fit. */
#ifndef BALANCED_GRID
#define BALANCED_GRID 1
#endif
#if CLUSTER != 1 && CLUSTER != 2 && CLUSTER != 4 && CLUSTER != 8
#error "CLUSTER is 1, 2, 4 or 8: the A tile's 256 rows split evenly into TMA boxes"
#endif
#if PRODUCER_REGISTERS * 128 + CONSUMER_REGISTERS * 128 * CONSUMERS > 65536
#error "PRODUCER_REGISTERS and CONSUMER_REGISTERS ask for more than the SM's 64 K registers"
#endif
#define BOX_FLOATS (BK * 32) /* one TMA box of B: 32 rows of k x 32 columns, 4 KB */
#define A_TILE_FLOATS (BM * BK)
#define A_PART_ROWS (BM / CLUSTER) /* the rows of the A tile each block's producer loads */
#define B_TILE_FLOATS (BN * BK)
#define STAGE_BYTES ((A_TILE_FLOATS + B_TILE_FLOATS) * sizeof(float))
#define SMEM_BYTES (STAGES * STAGE_BYTES + 1024)

#ifndef TF32_NO_WGMMA
/* Tile t of the grouped order: down GROUP_M tile rows, then one tile to the right. */
static __device__ __forceinline__ void grouped_tile(int t, int tiles_m, int tiles_n, int *tile_m,
                                                    int *tile_n)
{
    int per_group = GROUP_M * tiles_n, first_m = t / per_group * GROUP_M;
    int rows = min(tiles_m - first_m, GROUP_M), in_group = t % per_group;
    *tile_m = first_m + in_group % rows;
    *tile_n = in_group / rows;
}

/* Where this thread's fragments sit in a stage's B tile, and which columns of C its
 * wgmma rows g and g + 8 stand for (column, column + 1 of the tile). Consumer c's 64
 * columns are boxes 2c and 2c + 1; warp w takes 16 columns of box 2c + w/2. In a box,
 * 16-byte chunk j of row k sits at chunk j ^ (k % 8) (TMA's 128-byte swizzle). Lane
 * (g, t) reads rows t and t + 4 (mod 8) at chunk 2(w%2) + g/4 + 4((g%4)/2), half
 * (g%4)%2 of it: for the 16 lanes of a half-warp, 8 chunks x 2 halves, every bank once. */
struct fragment_map {
    int low, high; /* float offsets in a stage's B tile: row t, row t + 4 (+ 256 per k8) */
    int column;    /* this thread's first column of C in the tile (even) */
};

static __device__ __forceinline__ struct fragment_map frag_offset(int consumer)
{
    int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4, g = lane / 4, t = lane % 4;
    int box = 2 * consumer + warp / 2;
    int chunk = 2 * (warp % 2) + g / 4 + 4 * ((g % 4) / 2), half = 2 * ((g % 4) % 2);
    struct fragment_map f;
    f.low = box * BOX_FLOATS + t * BK + (chunk ^ t) * 4 + half;
    f.high = box * BOX_FLOATS + (t + 4) * BK + (chunk ^ (t + 4)) * 4 + half;
    f.column = box * 32 + chunk * 4 + half;
    return f;
}

static __device__ __forceinline__ void load_pair(uint32_t &x, uint32_t &y, uint32_t address)
{
    asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(x), "=r"(y) : "r"(address) : "memory");
}

/* Keeps a fragment set's registers alive (and unmoved) up to this point: the wgmma
 * that read it have finished only once a wait_group has said so. */
static __device__ __forceinline__ void fragments_keep(uint32_t (&f)[4][4])
{
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            asm volatile("" : "+r"(f[kk][i])::"memory");
}

/* Gives a stage back to the producers of both blocks of the cluster: either may
 * multicast into it next. */
static __device__ __forceinline__ void release_stage(uint64_t *empty)
{
#pragma unroll
    for (unsigned rank = 0; rank < CLUSTER; ++rank)
        mbarrier_arrive_cluster(empty, rank);
}

/* One K-slice: wait for its stage, load B's fragments into `mine`, issue its four
 * wgmma (k8 steps) as one group, then wait until only this group runs: the previous
 * slice's stage goes back to the producers, and its fragment set (`other`) is free. */
static __device__ __forceinline__ void consume_slice(float (&d)[128], uint32_t (&mine)[4][4],
                                                     uint32_t (&other)[4][4], int it, bool first,
                                                     const float *a_stage, uint32_t b_stage,
                                                     const struct fragment_map &f, uint64_t *full,
                                                     uint64_t *empty, bool leader)
{
    int s = it % STAGES;
    mbarrier_wait(&full[s], (it / STAGES) % 2);
    uint32_t b_tile = b_stage + s * B_TILE_FLOATS * (uint32_t)sizeof(float);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
        load_pair(mine[kk][0], mine[kk][1], b_tile + (f.low + kk * 8 * BK) * 4);
        load_pair(mine[kk][2], mine[kk][3], b_tile + (f.high + kk * 8 * BK) * 4);
    }
    const float *a_tile = a_stage + s * A_TILE_FLOATS;
    wgmma_fence(); /* the fragment loads are done before wgmma reads the registers */
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
        wgmma_m64n256k8_tf32_rs(d, mine[kk], wgmma_descriptor(a_tile + kk * 8));
    wgmma_commit();
    wgmma_wait<1>(); /* the previous slice's group is done; this one still runs */
    wgmma_keep(d);
    fragments_keep(other);
    if (!first && leader)
        release_stage(&empty[(it - 1) % STAGES]);
}

/* Writes a consumer's 64 x 256 tile of C^T: register 4j + i of lane (g, t) is row
 * 8j + 2t + (i%2) of the tile's C rows, column f.column + i/2. */
static __device__ __forceinline__ void store_transposed(const struct matmul_problem &p,
                                                        const float (&d)[128], int row0, int col)
{
    const int t = threadIdx.x % 4;
    const bool pairs = p.n % 2 == 0 && col < p.n; /* 8-byte aligned, both columns inside */
#pragma unroll
    for (int j = 0; j < 32; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            int r = row0 + 8 * j + 2 * t + h;
            if (r >= p.m)
                continue;
            float *dst = p.c + (size_t)r * p.n + col;
            if (pairs) {
                *(float2 *)dst = make_float2(d[4 * j + h], d[4 * j + 2 + h]);
            } else {
                if (col < p.n)
                    dst[0] = d[4 * j + h];
                if (col + 1 < p.n)
                    dst[1] = d[4 * j + 2 + h];
            }
        }
}

/* The consumers: as in step 09, over the cluster's tiles. */
static __device__ __forceinline__ void consume(const struct matmul_problem &p, const float *a_stage,
                               const float *b_stage, uint64_t *full, uint64_t *empty, int slices,
                               int tiles_m, int pairs_n, int cluster_tiles, int cluster,
                               int clusters, unsigned rank)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGISTERS));
    const int consumer = threadIdx.x / 128 - 1;
    const bool leader = threadIdx.x % 128 == 0;
    const struct fragment_map f = frag_offset(consumer);
    const uint32_t b_shared = shared_address(b_stage);
    float d[128];
    uint32_t frag0[4][4] = {}, frag1[4][4] = {}; /* two sets: one in flight, one loading */
    int it = 0; /* slices consumed so far, across tiles */
    for (int t = cluster; t < cluster_tiles; t += clusters) {
        int tile_m, pair_n;
        grouped_tile(t, tiles_m, pairs_n, &tile_m, &pair_n);
        int tile_n = pair_n * CLUSTER + (int)rank; /* may be past the last: stores nothing */
#pragma unroll
        for (int i = 0; i < 128; ++i)
            d[i] = 0.0f;
        int slice = 0;
        for (; slice + 1 < slices; slice += 2, it += 2) {
            consume_slice(d, frag0, frag1, it, slice == 0, a_stage, b_shared, f, full, empty,
                          leader);
            consume_slice(d, frag1, frag0, it + 1, false, a_stage, b_shared, f, full, empty,
                          leader);
        }
        if (slice < slices) {
            consume_slice(d, frag0, frag1, it, slice == 0, a_stage, b_shared, f, full, empty,
                          leader);
            ++it;
        }
        wgmma_wait<0>();
        wgmma_keep(d);
        fragments_keep(frag0);
        fragments_keep(frag1);
        if (leader) /* the tile's last stage */
            release_stage(&empty[(it - 1) % STAGES]);
        store_transposed(p, d, tile_m * BM, tile_n * BN + f.column);
    }
}
#endif

__global__ void __launch_bounds__(THREADS, 1)
    matmul_multicast(const __grid_constant__ CUtensorMap a_map,
                     const __grid_constant__ CUtensorMap b_map, struct matmul_problem p, int kp)
{
#ifdef TF32_NO_WGMMA
    __trap(); /* the compute_90 PTX: never run (the launch refuses all but sm_90a GPUs) */
#else
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
    float *smem = (float *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    float *a_stage = smem, *b_stage = smem + STAGES * A_TILE_FLOATS;
    const int warpgroup = threadIdx.x / 128;
    const int slices = (kp + BK - 1) / BK;
    const int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
    const int pairs_n = (tiles_n + CLUSTER - 1) / CLUSTER; /* cluster tiles across */
    const int cluster_tiles = tiles_m * pairs_n;
    const int cluster = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    const unsigned rank = cluster_rank();

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbarrier_init(&full[s], 1);                   /* this block's producer + bytes */
            mbarrier_init(&empty[s], CONSUMERS * CLUSTER); /* the consumers of both blocks */
        }
        mbarrier_init_fence();
    }
    cluster_sync(); /* the partner's barriers are ready before anything reaches them */

    if (warpgroup == 0) { /* the producer: its half of A for both blocks, its own B */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGISTERS));
        if (threadIdx.x == 0) {
            int it = 0; /* slices loaded so far, across tiles: the ring's position */
            for (int t = cluster; t < cluster_tiles; t += clusters) {
                int tile_m, pair_n;
                grouped_tile(t, tiles_m, pairs_n, &tile_m, &pair_n);
                /* past the last tile column, B's boxes arrive as zeros (TMA's bounds) */
                int tile_n = pair_n * CLUSTER + (int)rank;
                for (int slice = 0; slice < slices; ++slice, ++it) {
                    int s = it % STAGES, round = it / STAGES;
                    if (round > 0) /* both blocks' consumers are done with this stage */
                        mbarrier_wait(&empty[s], (round - 1) % 2);
                    mbarrier_expect_bytes(&full[s], STAGE_BYTES);
                    tma_load_2d_multicast(a_stage + s * A_TILE_FLOATS + rank * A_PART_ROWS * BK,
                                          &a_map, slice * BK, tile_m * BM + rank * A_PART_ROWS,
                                          &full[s], (1u << CLUSTER) - 1);
                    for (int box = 0; box < BN / 32; ++box)
                        tma_load_2d(b_stage + s * B_TILE_FLOATS + box * BOX_FLOATS, &b_map,
                                    tile_n * BN + 32 * box, slice * BK, &full[s]);
                }
            }
        }
        __syncwarp(); /* the warp together again for the cluster barrier */
    } else {
        consume(p, a_stage, b_stage, full, empty, slices, tiles_m, pairs_n, cluster_tiles, cluster,
                clusters, rank);
    }
    cluster_sync(); /* no block leaves while its partner may still arrive on its barriers */
#endif
}

/* The launch configuration of a cluster launch: THREADS-thread blocks in clusters of
 * CLUSTER along x. */
static cudaLaunchConfig_t cluster_config(dim3 grid, cudaStream_t stream, cudaLaunchAttribute *attr)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = dim3(THREADS);
    config.dynamicSmemBytes = SMEM_BYTES;
    config.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = CLUSTER;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    return config;
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct matmul_problem *p = (const struct matmul_problem *)problem;
    cudaError_t status = tf32_require_arch(9, 0, 1, "wgmma and TMA (sm_90a: H100, H200, GH200)");
    if (status != cudaSuccess)
        return status;
    cudaLaunchAttribute attr;
    static int resident = 0; /* clusters that fit on the GPU at once */
    if (resident == 0) {
        status = cudaFuncSetAttribute(matmul_multicast, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)SMEM_BYTES);
        if (status != cudaSuccess)
            return status;
        cudaLaunchConfig_t probe = cluster_config(dim3(CLUSTER), stream, &attr);
        if ((status = cudaOccupancyMaxActiveClusters(&resident, matmul_multicast, &probe)) !=
            cudaSuccess)
            return status;
        if (resident == 0)
            return step_refuse_launch("not even one cluster of two blocks fits on this GPU");
    }
    long long tiles_m = (p->m + BM - 1) / BM, pairs_n = ((p->n + BN - 1) / BN + CLUSTER - 1) / CLUSTER;
    long long cluster_tiles = tiles_m * pairs_n;
    if (cluster_tiles > 2147483647LL / CLUSTER)
        return step_refuse_launch("more tiles of C than an int counts");
    /* as many clusters as fit at once, each looping over cluster tiles */
    long long clusters = cluster_tiles < resident ? cluster_tiles : resident;
    if (BALANCED_GRID) { /* the same rounds, each cluster as many tiles as the others */
        long long rounds = (cluster_tiles + clusters - 1) / clusters;
        clusters = (cluster_tiles + rounds - 1) / rounds;
    }
    dim3 grid((unsigned)(CLUSTER * clusters));
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    /* Both operands as they are, copied only when a row does not start on 16 bytes. */
    static struct tf32_scratch a_copy, b_copy;
    const float *a, *b;
    int kp, np;
    if ((status = tf32_rows_16_bytes(p->a, p->m, p->k, &a_copy, stream, &a, &kp)) != cudaSuccess ||
        (status = tf32_rows_16_bytes(p->b, p->k, p->n, &b_copy, stream, &b, &np)) != cudaSuccess)
        return status;
    static struct tf32_map_slot a_map, b_map;
    if ((status = tf32_tensor_map_cached(&a_map, a, p->m, kp, A_PART_ROWS)) != cudaSuccess ||
        (status = tf32_tensor_map_cached(&b_map, b, p->k, np, BK)) != cudaSuccess)
        return status;
    cudaLaunchConfig_t config = cluster_config(grid, stream, &attr);
    if ((status = cudaLaunchKernelEx(&config, matmul_multicast, a_map.map, b_map.map, *p, kp)) !=
        cudaSuccess)
        return status;
    return cudaGetLastError();
}

DEFINE_STEP(matmul_multicast, THREADS, SMEM_BYTES, launch);
