/* Step 15 - several threads per body for small n.
 * Guide: labs/nbody/README.md#step-15--threads-per-body
 *
 * What changed from 14: PARTS threads (a power of two up to 32, chosen at launch so that the grid
 * fills the GPU about twice) share one body: each takes every PARTS-th body of a
 * tile, and the partial sums are added with warp shuffles.
 * Why: with one thread per body, 4096 bodies are 16 blocks: 16 of 132 SMs busy.
 * Appendix B.8 (8800 GTX): 90 -> 190 GFLOP/s at n = 1024 with 4 threads per body.
 * Expect: a large gain over step 13 at n = 1024 to 16384, shrinking as n grows and
 *   the GPU fills by itself (labs/nbody/README.md, "The small-n experiment", has the H100 runs).
 *   PARTS reaches 1 only above about 540000 bodies (8 at 131072).
 *   Default size 4096.
 * Run:  make run LAB=nbody STEP=15    (default 4096 bodies; RUN_ARGS="--n 1000" for an awkward size)
 */
#include "nbody.h"
#include "step_kernel.h"

#define THREADS 256 /* threads per block, and bodies per shared-memory tile */

/* Everything that stays the same for a whole run, in constant memory: every thread
 * of a warp reads the same word, which the constant cache broadcasts. */
__constant__ struct nbody_problem c;

/* Copies the parameters into constant memory, ordered on the stream before the
 * kernels that read them. */
static cudaError_t set_parameters(const struct nbody_problem *p, cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(c, p, sizeof *p, 0, cudaMemcpyHostToDevice, stream);
}

/* PARTS threads share one body: each takes every PARTS-th body of a tile, then the
 * PARTS partial sums (held by PARTS neighbouring lanes) are added with shuffles. */
template <int PARTS>
__device__ __forceinline__ void force_parts(void)
{
    __shared__ float4 tile[THREADS];
    const int n = c.n;
    const float epssq = c.epssq;
    const int part = threadIdx.x % PARTS;
    const long i = (long)blockIdx.x * (THREADS / PARTS) + threadIdx.x / PARTS;
    float px = 0.0f, py = 0.0f, pz = 0.0f;
    if (i < n) {
        float4 me = c.posm[i];
        px = me.x, py = me.y, pz = me.z;
    }
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j1 = 0; j1 < n; j1 += THREADS) {
        int idx = j1 + threadIdx.x;
        tile[threadIdx.x] = idx < n ? c.posm[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        #pragma unroll 32
        for (int j2 = part; j2 < THREADS; j2 += PARTS) {
            float4 q = tile[j2]; /* PARTS different words per warp: no bank conflict */
            float dx = q.x - px;
            float dy = q.y - py;
            float dz = q.z - pz;
            float dsq = dx * dx + (dy * dy + (dz * dz + epssq));
            float dinv = rsqrtf(dsq);
            float scale = q.w * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;
        }
        __syncthreads();
    }
    #pragma unroll
    for (int offset = PARTS / 2; offset > 0; offset /= 2) {
        ax += __shfl_xor_sync(0xffffffffu, ax, offset, PARTS);
        ay += __shfl_xor_sync(0xffffffffu, ay, offset, PARTS);
        az += __shfl_xor_sync(0xffffffffu, az, offset, PARTS);
    }
    if (i < n && part == 0) {
        c.accx[i] = ax;
        c.accy[i] = ay;
        c.accz[i] = az;
    }
}

/* one kernel per choice, each with a name of its own for the resource report */
#define PARTS_KERNEL(parts)     __global__ void __launch_bounds__(THREADS) force_parts_##parts(void) { force_parts<parts>(); }
PARTS_KERNEL(1)
PARTS_KERNEL(2)
PARTS_KERNEL(4)
PARTS_KERNEL(8)
PARTS_KERNEL(16)
PARTS_KERNEL(32)

/* Threads per body: enough for about two full waves of the GPU (2048 threads per
 * SM), a power of two up to a warp. 1 at large n: then this is step 13. */
static cudaError_t parts_for(long n, int *parts)
{
    int device = 0, sms = 0;
    cudaError_t status = cudaGetDevice(&device);
    if (status == cudaSuccess)
        status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (status != cudaSuccess)
        return status;
    long target = 2L * sms * 2048;
    int p = 1;
    while (p < 32 && n * p < target)
        p *= 2;
    *parts = p;
    return cudaSuccess;
}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{
    int parts = 1;
    unsigned blocks;
    cudaError_t status = parts_for(p->n, &parts);
    if (status == cudaSuccess)
        status = nbody_blocks(p->n, THREADS / parts, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    switch (parts) {
    case 1: force_parts_1<<<blocks, THREADS, 0, stream>>>(); break;
    case 2: force_parts_2<<<blocks, THREADS, 0, stream>>>(); break;
    case 4: force_parts_4<<<blocks, THREADS, 0, stream>>>(); break;
    case 8: force_parts_8<<<blocks, THREADS, 0, stream>>>(); break;
    case 16: force_parts_16<<<blocks, THREADS, 0, stream>>>(); break;
    default: force_parts_32<<<blocks, THREADS, 0, stream>>>(); break;
    }
    return cudaGetLastError();
}

/* v += a kick, x += v drift, one thread per body; positions live in posm */
__global__ void advance_float4(float kick, float drift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < c.n) {
        float vx = c.velx[i] + c.accx[i] * kick;
        float vy = c.vely[i] + c.accy[i] * kick;
        float vz = c.velz[i] + c.accz[i] * kick;
        c.velx[i] = vx, c.vely[i] = vy, c.velz[i] = vz;
        float4 p = c.posm[i];
        p.x += vx * drift, p.y += vy * drift, p.z += vz * drift;
        c.posm[i] = p;
    }
}

static cudaError_t advance(const struct nbody_problem *p, float kick, float drift, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, 256, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    advance_float4<<<blocks, 256, 0, stream>>>(kick, drift);
    return cudaGetLastError();
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return nbody_leapfrog((const struct nbody_problem *)problem, stream, forces, advance);
}

/* resources reported for 32 threads per body, the choice at the default 4096 bodies */
DEFINE_STEP(force_parts_32, THREADS, 0, launch);
