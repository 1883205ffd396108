/* What the Hopper steps (05 wgmma onwards, compiled for sm_90a) share that is not
 * their lesson: the operands made K-major once per launch, the wgmma instructions
 * and descriptors, and the tensor maps of the TMA steps (06 onwards; mbarriers, TMA
 * loads and the encoder are harness/hopper_tma.cuh's, which the attention lab shares).
 * CUDA C, included by those step files.
 *
 * Operands. wgmma with TF32 reads both A and B K-major from shared memory (the
 * transposing forms exist for 16-bit types only): each row of a tile holds
 * consecutive k. A (m x k, row-major) is K-major already; B (k x n, row-major) is
 * not. tf32_k_major() writes B transposed, Bt (n x kp), into a scratch buffer before
 * the step's kernel, and A too, into a copy with rows of kp floats, when k is not a
 * multiple of 4: TMA and 16-byte copies need every row to start on 16 bytes. kp is k
 * rounded up to 4, the extra columns zero. The passes are part of the step's time
 * (about 2 x 4 k n bytes of memory traffic; a few percent of the product at 4096^3).
 *
 * Shared tiles. Each tile row is one K-slice of 32 floats = 128 bytes, stored with
 * the 128-byte swizzle both TMA (CU_TENSOR_MAP_SWIZZLE_128B) and the wgmma
 * descriptor (layout type 1) use: 16-byte chunk c of row r sits at chunk c ^ (r % 8),
 * so the 8 rows of a core matrix fall on different banks. Tiles start on 1024 bytes. */
#ifndef LAB_MATMUL_TF32_HOPPER_CUH
#define LAB_MATMUL_TF32_HOPPER_CUH

#include "hopper_tma.cuh" /* mbarriers, TMA, tensor maps */

#include "matmul.h"
#include "tf32_common.cuh"

#define TF32_SLICE_FLOATS 32 /* one swizzled row: 128 bytes of K */

/* nvcc -arch=sm_90a also embeds PTX for plain compute_90, where wgmma, setmaxnreg and
 * the like do not exist: there a step's kernel body is left out (__trap). A GPU of
 * compute capability 9.0 runs the sm_90a code; any other is refused at launch. */
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TF32_NO_WGMMA 1
#endif

/* ---- operands made K-major (host side, enqueued on the step's stream) ---------- */

struct tf32_operands {
    const float *a;  /* m x kp, K-major: p->a itself when k % 4 == 0 */
    const float *bt; /* n x kp: B transposed */
    int kp;          /* k rounded up to a multiple of 4 */
};

/* Bt[col][k] = B[k][col] for k < K, 0 for K <= k < kp: 32 x 32 tiles through shared
 * memory (padded: the column reads are conflict-free), both sides coalesced. */
__global__ void tf32_transpose_b(const float *b, float *bt, int k, int n, int kp)
{
    __shared__ float tile[32][33];
    int k0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
    for (int r = threadIdx.y; r < 32; r += blockDim.y) {
        int kk = k0 + r, col = n0 + threadIdx.x;
        tile[r][threadIdx.x] = kk < k && col < n ? b[(size_t)kk * n + col] : 0.0f;
    }
    __syncthreads();
    for (int r = threadIdx.y; r < 32; r += blockDim.y) {
        int col = n0 + r, kk = k0 + threadIdx.x;
        if (col < n && kk < kp)
            bt[(size_t)col * kp + kk] = tile[threadIdx.x][r];
    }
}

/* out[row][k] = a[row][k] for k < K, 0 up to kp. */
__global__ void tf32_pad_rows(const float *a, float *out, int m, int k, int kp)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, count = (size_t)m * kp;
    for (; i < count; i += (size_t)gridDim.x * blockDim.x) {
        size_t row = i / kp, kk = i % kp;
        out[i] = kk < (size_t)k ? a[row * k + kk] : 0.0f;
    }
}

/* A buffer kept for the process's life and grown when a larger size comes. */
struct tf32_scratch {
    float *data;
    size_t floats;
};

static inline cudaError_t tf32_scratch_reserve(struct tf32_scratch *s, size_t floats)
{
    if (s->floats >= floats)
        return cudaSuccess;
    if (s->data != NULL) {
        cudaError_t status = cudaFree(s->data);
        s->data = NULL;
        s->floats = 0;
        if (status != cudaSuccess)
            return status;
    }
    cudaError_t status = cudaMalloc((void **)&s->data, floats * sizeof(float));
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        char why[sizeof step_launch_refusal];
        snprintf(why, sizeof why, "no device memory left for the %.1f MB this step copies an "
                 "operand into (%s)", floats * 4.0 / 1e6, cudaGetErrorString(status));
        return step_refuse_launch(why);
    }
    s->floats = floats;
    return cudaSuccess;
}

/* A row-major rows x cols matrix with every row starting on 16 bytes, as TMA needs:
 * the matrix itself when cols % 4 == 0, else a copy with rows of cols rounded up to 4
 * floats (the extra columns zero) in *scratch, enqueued on stream. *pitch: the row
 * length in floats of what *out points to. */
static inline cudaError_t tf32_rows_16_bytes(const float *matrix, int rows, int cols,
                                             struct tf32_scratch *scratch, cudaStream_t stream,
                                             const float **out, int *pitch)
{
    int padded = (cols + 3) / 4 * 4;
    *out = matrix;
    *pitch = padded;
    if (padded == cols)
        return cudaSuccess;
    cudaError_t status = tf32_scratch_reserve(scratch, (size_t)rows * padded);
    if (status != cudaSuccess)
        return status;
    tf32_pad_rows<<<1024, 256, 0, stream>>>(matrix, scratch->data, rows, cols, padded);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    *out = scratch->data;
    return cudaSuccess;
}

/* Enqueues the passes that make both operands K-major with 16-byte rows. */
static inline cudaError_t tf32_k_major(const struct matmul_problem *p, cudaStream_t stream,
                                struct tf32_operands *out)
{
    static struct tf32_scratch bt_buffer, a_buffer;
    int kp = (p->k + 3) / 4 * 4;
    cudaError_t status = tf32_scratch_reserve(&bt_buffer, (size_t)p->n * kp);
    if (status != cudaSuccess)
        return status;
    dim3 grid((unsigned)((p->n + 31) / 32), (unsigned)((kp + 31) / 32));
    if ((status = step_check_grid(grid)) != cudaSuccess)
        return status;
    tf32_transpose_b<<<grid, dim3(32, 8), 0, stream>>>(p->b, bt_buffer.data, p->k, p->n, kp);
    if ((status = cudaGetLastError()) != cudaSuccess)
        return status;
    if ((status = tf32_rows_16_bytes(p->a, p->m, p->k, &a_buffer, stream, &out->a, &out->kp)) !=
        cudaSuccess)
        return status;
    out->bt = bt_buffer.data;
    return cudaSuccess;
}

/* ---- wgmma -------------------------------------------------------------------- */

/* The shared-memory matrix descriptor of a K-major tile with 128-byte swizzle whose
 * rows are 128 bytes: start address, leading byte offset (unused by this layout, 1 by
 * convention), stride byte offset 1024 (from one 8-row core-matrix group to the
 * next), layout type 1 (128B swizzle) in bits 62-63. Moving along K inside the
 * 128-byte row is moving the start address: + 32 bytes per k8 step. */
static __device__ __forceinline__ uint64_t wgmma_descriptor(const void *tile)
{
    uint64_t address = shared_address(tile);
    return ((address & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

/* Orders this warpgroup's register accesses before the wgmma that follow. */
static __device__ __forceinline__ void wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void wgmma_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* Waits until at most `pending` committed wgmma groups of this warpgroup are running. */
template <int pending>
static __device__ __forceinline__ void wgmma_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
}

/* Keeps the accumulators in registers across the asynchronous wgmma: the compiler
 * must not move their uses across the fence/commit/wait. */
template <int count>
static __device__ __forceinline__ void wgmma_keep(float (&d)[count])
{
#pragma unroll
    for (int i = 0; i < count; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* wgmma's accumulator operands: harness/wgmma_operands.h */
#include "wgmma_operands.h"

/* D (64 x 128, FP32, 64 registers a thread) += A (64 x 8) B (8 x 128), TF32, both
 * read from shared memory through descriptors. */
static __device__ __forceinline__ void wgmma_m64n128k8_tf32(float (&d)[64], uint64_t a_desc,
                                                        uint64_t b_desc)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n" /* scale-d: accumulate into d */
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                 "{"
                 WGMMA_D_REGS_0_63
                 "}, %64, %65, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D_OUTS_0_63
                 : "l"(a_desc), "l"(b_desc), "r"(1));
}

/* D (64 x 256, FP32, 128 registers a thread) += A (64 x 8) B (8 x 256), TF32, both
 * read from shared memory through descriptors. */
static __device__ __forceinline__ void wgmma_m64n256k8_tf32(float (&d)[128], uint64_t a_desc,
                                                        uint64_t b_desc)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %130, 0;\n" /* scale-d: accumulate into d */
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
                 "{"
                 WGMMA_D_REGS_0_63 ", " WGMMA_D_REGS_64_127
                 "}, %128, %129, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D_OUTS_0_63, WGMMA_D_OUTS_64_127
                 : "l"(a_desc), "l"(b_desc), "r"(1));
}

/* D (64 x 256, FP32, 128 registers a thread) += A (64 x 8) B (8 x 256), TF32, with A
 * from registers, any layout in memory, since each thread loads its own fragment:
 * thread (warp w of the group, lane = 4g + t) holds a[0] = A[16w + g][t],
 * a[1] = A[16w + g + 8][t], a[2] = A[16w + g][t + 4], a[3] = A[16w + g + 8][t + 4];
 * B from shared memory through its descriptor. wgmma reads a[] asynchronously: the
 * registers must keep their values until a wgmma_wait has seen this group finish. */
static __device__ __forceinline__ void wgmma_m64n256k8_tf32_rs(float (&d)[128],
                                                           const uint32_t (&a)[4],
                                                           uint64_t b_desc)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %133, 0;\n" /* scale-d: accumulate into d */
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
                 "{"
                 WGMMA_D_REGS_0_63 ", " WGMMA_D_REGS_64_127
                 "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n"
                 "}\n"
                 : WGMMA_D_OUTS_0_63, WGMMA_D_OUTS_64_127
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(1));
}

/* Writes a warpgroup's 64 x n accumulator tile (wgmma's D layout) to C at (row0, col0),
 * guarded: warp w of the group holds rows 16w + lane/4 (+8), register 4j + i holds
 * column 8j + 2(lane%4) + (i%2) of row (i/2 ? +8 : +0). */
template <int count>
static __device__ __forceinline__ void wgmma_store_tile(const struct matmul_problem &p,
                                                        const float (&d)[count], int row0,
                                                        int col0)
{
    int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    int row = row0 + 16 * warp + lane / 4, col = col0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < count / 4; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            int r = row + 8 * (i / 2), c = col + 8 * j + (i % 2);
            if (r < p.m && c < p.n)
                p.c[(size_t)r * p.n + c] = d[4 * j + i];
        }
}

/* mbarriers, TMA loads and the tensor-map encoder: harness/hopper_tma.cuh. */

/* ---- thread-block clusters (step 10) -------------------------------------------- */

/* This block's rank in its cluster. */
static __device__ __forceinline__ unsigned cluster_rank(void)
{
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    return rank;
}

/* Every thread of every block of the cluster waits here for all the others: what each
 * did before (barrier initialization, remote arrivals) is visible to all after. */
static __device__ __forceinline__ void cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

/* One arrival on the barrier at bar's offset in the shared memory of the cluster's
 * block of rank `rank` (this block's own included). With the default .release.cta
 * semantics, as CUTLASS's ClusterBarrier: the arrival says "my reads of the stage are
 * over", and wgmma_wait / the loads into registers have completed them already;
 * .release.cluster would put a MEMBAR.GPU before every arrival. */
static __device__ __forceinline__ void mbarrier_arrive_cluster(uint64_t *bar, unsigned rank)
{
    asm volatile("{\n"
                 ".reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
                 "}\n" ::"r"(shared_address(bar)),
                 "r"(rank)
                 : "memory");
}

/* TMA multicast: one copy from global memory lands at dst's offset in the shared
 * memory of every block of the cluster whose bit is set in cta_mask, and signals its
 * bytes on the barrier at bar's offset in each of them. */
static __device__ __forceinline__ void tma_load_2d_multicast(void *dst, const CUtensorMap *map,
                                                             int x, int y, uint64_t *bar,
                                                             uint16_t cta_mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(shared_address(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(shared_address(bar)), "h"(cta_mask)
                 : "memory");
}

/* A tensor map over a row-major matrix of `rows` rows of kp floats (K-major A and Bt;
 * in step 09 also B itself, rows of k, the box running along n), read in boxes of
 * box_rows rows x 32 floats with the 128-byte swizzle, out-of-bounds as zeros. The
 * driver's encoder is found through the runtime (no libcuda link); the last map
 * made for each slot is kept, since the launch is timed. */
static inline cudaError_t tf32_tensor_map(CUtensorMap *map, const float *matrix, int rows, int kp,
                                   int box_rows)
{
    cuuint64_t dims[2] = {(cuuint64_t)kp, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)kp * sizeof(float)};
    cuuint32_t box[2] = {TF32_SLICE_FLOATS, (cuuint32_t)box_rows};
    char what[64];
    snprintf(what, sizeof what, "a %d x %d matrix", rows, kp);
    return hopper_tensor_map(map, what, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, matrix, dims, strides,
                             box);
}

/* The A and Bt tensor maps of one launch, remade only when the operands change. */
struct tf32_maps {
    CUtensorMap a, bt;
    const float *a_ptr, *bt_ptr;
    int m, n, kp;
};

static inline cudaError_t tf32_tensor_maps(struct tf32_maps *maps, const struct matmul_problem *p,
                                    const struct tf32_operands *ops, int box_m, int box_n)
{
    if (maps->a_ptr == ops->a && maps->bt_ptr == ops->bt && maps->m == p->m && maps->n == p->n &&
        maps->kp == ops->kp)
        return cudaSuccess;
    cudaError_t status = tf32_tensor_map(&maps->a, ops->a, p->m, ops->kp, box_m);
    if (status == cudaSuccess)
        status = tf32_tensor_map(&maps->bt, ops->bt, p->n, ops->kp, box_n);
    if (status != cudaSuccess) {
        maps->a_ptr = NULL;
        return status;
    }
    maps->a_ptr = ops->a;
    maps->bt_ptr = ops->bt;
    maps->m = p->m;
    maps->n = p->n;
    maps->kp = ops->kp;
    return cudaSuccess;
}

/* One tensor map, remade only when its matrix, shape or box changes. */
struct tf32_map_slot {
    CUtensorMap map;
    const float *matrix;
    int rows, pitch, box_rows;
};

static inline cudaError_t tf32_tensor_map_cached(struct tf32_map_slot *slot, const float *matrix,
                                                 int rows, int pitch, int box_rows)
{
    if (slot->matrix == matrix && slot->rows == rows && slot->pitch == pitch &&
        slot->box_rows == box_rows)
        return cudaSuccess;
    slot->matrix = NULL;
    cudaError_t status = tf32_tensor_map(&slot->map, matrix, rows, pitch, box_rows);
    if (status != cudaSuccess)
        return status;
    slot->matrix = matrix;
    slot->rows = rows;
    slot->pitch = pitch;
    slot->box_rows = box_rows;
    return cudaSuccess;
}

#endif
