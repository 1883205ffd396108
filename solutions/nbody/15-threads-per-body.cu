/* Step 15 - several threads per body for small n.
 *
 * What changed from 14: PARTS threads (a power of two up to 8, chosen at launch so that the grid
 * fills the GPU about twice) share step 14's four bodies: each takes every
 * PARTS-th body of a tile, and the partial sums are added with warp shuffles.
 * Why: with one thread per body, 4096 bodies are 16 blocks: 16 of 132 SMs busy;
 * with four bodies per thread even 131072 bodies leave each SM 8 warps.
 * Appendix B.8 (8800 GTX): 90 -> 190 GFLOP/s at n = 1024 with 4 threads per body.
 * Expect: a large gain at n = 1024 to 16384, and the fastest step at 131072 too (the
 *   speed target: >= 2.0e12 interactions/s there on an H100). Default size 4096.
 * Run:  make run LAB=nbody STEP=15    (default 4096 bodies; RUN_ARGS="--n 1000" for an awkward size)
 */
#include "nbody.h"
#include "step.h"

#define THREADS 256 /* threads per block, and bodies per shared-memory tile */
#define BODIES 4    /* bodies per thread, as in step 14 */

/* Everything that stays the same for a whole run, in constant memory: every thread
 * of a warp reads the same word, which the constant cache broadcasts. */
__constant__ struct nbody_problem c;

/* Copies the parameters into constant memory, ordered on the stream before the
 * kernels that read them. */
static cudaError_t set_parameters(const struct nbody_problem *p, cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(c, p, sizeof *p, 0, cudaMemcpyHostToDevice, stream);
}

/* PARTS neighbouring threads share BODIES bodies: each takes every PARTS-th body of
 * a tile, then the PARTS partial sums are added with warp shuffles. A block holds
 * THREADS / PARTS groups, so THREADS / PARTS * BODIES bodies. */
template <int PARTS>
__device__ __forceinline__ void force_parts(void)
{
    __shared__ float4 tile[THREADS];
    const int n = c.n;
    const float epssq = c.epssq;
    const int part = threadIdx.x % PARTS;
    const int groups = THREADS / PARTS;
    const long first = (long)blockIdx.x * (groups * BODIES) + threadIdx.x / PARTS;
    float px[BODIES], py[BODIES], pz[BODIES], ax[BODIES], ay[BODIES], az[BODIES];
    #pragma unroll
    for (int b = 0; b < BODIES; ++b) {
        long i = first + (long)b * groups;
        float4 me = i < n ? c.posm[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        px[b] = me.x, py[b] = me.y, pz[b] = me.z;
        ax[b] = ay[b] = az[b] = 0.0f;
    }
    for (int j1 = 0; j1 < n; j1 += THREADS) {
        int idx = j1 + threadIdx.x;
        tile[threadIdx.x] = idx < n ? c.posm[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        #pragma unroll 16
        for (int j2 = part; j2 < THREADS; j2 += PARTS) {
            float4 q = tile[j2]; /* PARTS <= 8 different float4 per warp: one wavefront */
            #pragma unroll
            for (int b = 0; b < BODIES; ++b) {
                float dx = q.x - px[b];
                float dy = q.y - py[b];
                float dz = q.z - pz[b];
                float dsq = dx * dx + (dy * dy + (dz * dz + epssq));
                float dinv = rsqrtf(dsq);
                float scale = q.w * dinv * dinv * dinv;
                ax[b] += dx * scale;
                ay[b] += dy * scale;
                az[b] += dz * scale;
            }
        }
        __syncthreads();
    }
    #pragma unroll
    for (int b = 0; b < BODIES; ++b) {
        #pragma unroll
        for (int offset = PARTS / 2; offset > 0; offset /= 2) {
            ax[b] += __shfl_xor_sync(0xffffffffu, ax[b], offset, PARTS);
            ay[b] += __shfl_xor_sync(0xffffffffu, ay[b], offset, PARTS);
            az[b] += __shfl_xor_sync(0xffffffffu, az[b], offset, PARTS);
        }
        long i = first + (long)b * groups;
        if (i < n && part == 0) {
            c.accx[i] = ax[b];
            c.accy[i] = ay[b];
            c.accz[i] = az[b];
        }
    }
}

/* one kernel per choice, each with a name of its own for the resource report */
#define PARTS_KERNEL(parts) \
    __global__ void __launch_bounds__(THREADS) force_parts_##parts(void) { force_parts<parts>(); }
PARTS_KERNEL(1)
PARTS_KERNEL(2)
PARTS_KERNEL(4)
PARTS_KERNEL(8)

/* Threads per body: enough threads for about two full waves of the GPU (2048 per
 * SM), a power of two up to 8 (more would make the tile reads conflict). */
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
    while (p < 8 && (n + BODIES - 1) / BODIES * p < target)
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
        status = nbody_blocks(p->n, THREADS / parts * BODIES, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    switch (parts) {
    case 1: force_parts_1<<<blocks, THREADS, 0, stream>>>(); break;
    case 2: force_parts_2<<<blocks, THREADS, 0, stream>>>(); break;
    case 4: force_parts_4<<<blocks, THREADS, 0, stream>>>(); break;
    default: force_parts_8<<<blocks, THREADS, 0, stream>>>(); break;
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

/* resources reported for 8 threads per body, the choice up to about 135000 bodies */
DEFINE_STEP(force_parts_8, THREADS, 0, launch);
