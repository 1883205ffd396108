/* Step 16 - the j loop split across blocks, so that every SM gets the same work.
 * Guide: labs/nbody/README.md#step-16--split-j
 *
 * What changed from 14 (15 is the small-n detour): the grid gets a second dimension.
 * Block (x, y) still computes 1024 bodies (BODIES = 4 per thread, 256 threads), but
 * only against slice y of the tiles of j; the slices' partial forces are added into
 * the accelerations with atomicAdd, which are zeroed first. The number of slices is
 * chosen at launch from the GPU: about WAVES rounds of every SM full of blocks.
 * Why: at 131072 bodies step 14 is 128 blocks, one per SM: 4 of the H100's 132 SMs
 * idle (3%), and 8 warps on each busy SM, 2 per scheduler, too few to keep the
 * issue slots full. With 33 slices the same work is 4224 smaller blocks: 4 resident
 * per SM (the register file holds 4 blocks of 256 threads at step 14's registers a
 * thread; make report gives the count), 32 warps each,
 * dealt out to all 132 SMs as they free up.
 * Expect: the registers and the interaction's 13 instructions of step 14; 4 blocks
 *   per SM (registers) instead of 1 in use. On the H100 at 131072 bodies a gain over
 *   step 14 that reaches the lab's target of 2.0e12 interactions/s. The atomics are
 *   3 x n x slices additions in L2 (13 million at 131072 bodies; their cost not
 *   measured apart) and make the order of the sum, so the last bits, differ from
 *   run to run.
 *   Measured: the table of recorded runs in labs/nbody/README.md (make
 *   guide-tables, from data/results/<gpu>/nbody.csv); registers: make report.
 * Run:  make run LAB=nbody STEP=16    (default 131072 bodies; RUN_ARGS="--n 1000" for an awkward size)
 */
#include "nbody.h"
#include "step_kernel.h"

#ifndef THREADS
#define THREADS 256 /* threads per block, and bodies per shared-memory tile */
#endif
#ifndef BODIES
#define BODIES 4    /* bodies per thread */
#endif
#ifndef UNROLL
#define UNROLL 16   /* of the loop over a tile */
#endif
#ifndef WAVES
#define WAVES 8     /* rounds of full SMs the slices aim for: the last round's imbalance is 1/WAVES of one */
#endif
constexpr int unroll_factor = UNROLL;

/* Everything that stays the same for a whole run, in constant memory: every thread
 * of a warp reads the same word, which the constant cache broadcasts. */
__constant__ struct nbody_problem c;

/* Copies the parameters into constant memory, ordered on the stream before the
 * kernels that read them. */
static cudaError_t set_parameters(const struct nbody_problem *p, cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(c, p, sizeof *p, 0, cudaMemcpyHostToDevice, stream);
}

/* Block (x, y): bodies x * THREADS * BODIES on, against the tiles of slice y of
 * gridDim.y (slice boundaries on whole tiles, so only the last tile of all is short). */
__global__ void __launch_bounds__(THREADS) force_split(void)
{
    __shared__ float4 tile[THREADS];
    const int n = c.n;
    const float epssq = c.epssq;
    const long tiles = (n + THREADS - 1) / THREADS;
    const long first_tile = tiles * blockIdx.y / gridDim.y;
    const long end_tile = tiles * (blockIdx.y + 1) / gridDim.y;
    /* this thread's bodies: THREADS apart, so each load of them is coalesced */
    const long first = (long)blockIdx.x * (THREADS * BODIES) + threadIdx.x;
    float px[BODIES], py[BODIES], pz[BODIES], ax[BODIES], ay[BODIES], az[BODIES];
    #pragma unroll
    for (int b = 0; b < BODIES; ++b) {
        long i = first + (long)b * THREADS;
        float4 me = i < n ? c.posm[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        px[b] = me.x, py[b] = me.y, pz[b] = me.z;
        ax[b] = ay[b] = az[b] = 0.0f;
    }
    for (long t = first_tile; t < end_tile; ++t) {
        long idx = t * THREADS + threadIdx.x;
        /* past n: massless bodies, whose terms are exactly zero */
        tile[threadIdx.x] = idx < n ? c.posm[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        #pragma unroll unroll_factor
        for (int j2 = 0; j2 < THREADS; ++j2) {
            float4 q = tile[j2]; /* loaded once, used for BODIES interactions */
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
    /* this slice's share; the other slices add theirs (in L2, in no fixed order) */
    #pragma unroll
    for (int b = 0; b < BODIES; ++b) {
        long i = first + (long)b * THREADS;
        if (i < n) {
            atomicAdd(&c.accx[i], ax[b]);
            atomicAdd(&c.accy[i], ay[b]);
            atomicAdd(&c.accz[i], az[b]);
        }
    }
}

/* Slices of j for this GPU: enough blocks for about WAVES rounds of every SM holding
 * as many blocks as fit, never more slices than tiles. */
static cudaError_t choose_slices(long n, unsigned rows, unsigned *slices)
{
    int device, sms, resident;
    cudaError_t status = cudaGetDevice(&device);
    if (status == cudaSuccess)
        status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (status == cudaSuccess)
        status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, force_split, THREADS, 0);
    if (status != cudaSuccess)
        return status;
    long wanted = ((long)WAVES * sms * (resident > 0 ? resident : 1) + rows - 1) / rows;
    long tiles = (n + THREADS - 1) / THREADS;
    if (wanted > tiles)
        wanted = tiles;
    if (wanted > 65535) /* gridDim.y's limit */
        wanted = 65535;
    *slices = (unsigned)(wanted > 0 ? wanted : 1);
    return cudaSuccess;
}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{
    unsigned rows, slices;
    cudaError_t status = nbody_blocks(p->n, THREADS * BODIES, &rows);
    if (status == cudaSuccess)
        status = choose_slices(p->n, rows, &slices);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    /* the slices add into the accelerations: start them at zero */
    size_t bytes = (size_t)p->n * sizeof(float);
    if (status == cudaSuccess)
        status = cudaMemsetAsync(p->accx, 0, bytes, stream);
    if (status == cudaSuccess)
        status = cudaMemsetAsync(p->accy, 0, bytes, stream);
    if (status == cudaSuccess)
        status = cudaMemsetAsync(p->accz, 0, bytes, stream);
    if (status != cudaSuccess)
        return status;
    force_split<<<dim3(rows, slices), THREADS, 0, stream>>>();
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

DEFINE_STEP(force_split, THREADS, 0, launch);
