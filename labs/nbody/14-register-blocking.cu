/* Step 14 - several bodies per thread.   *** YOUR TURN ***
 * Guide: labs/nbody/README.md#step-14--register-blocking
 *
 * What changed from 13: each thread computes BODIES = 4 bodies (THREADS apart), 256 threads per
 * block: every float4 read from the tile serves four interactions.
 * Why: the shared load and the loop overhead are shared by four interactions, and
 * four independent dependency chains hide the MUFU latency with fewer warps.
 * Expect: more registers (four sets of position and acceleration); 1024 bodies per block,
 *   128 blocks at 131072 bodies: one per SM, 8 warps each. The speed target: >= 2.0e12
 *   interactions/s at 131072 bodies on an H100 (ceiling about 2.4e12).
 * Run:  make run LAB=nbody STEP=14    (default 131072 bodies; RUN_ARGS="--n 1000" for an awkward size)
 *
 * This file is step 13's solution: it runs and passes as it is. Make the change
 * marked TODO; labs/nbody/README.md has the rest.
 */
#include "nbody.h"
#include "step_kernel.h"

#define THREADS 256

/* Everything that stays the same for a whole run, in constant memory: every thread
 * of a warp reads the same word, which the constant cache broadcasts. */
__constant__ struct nbody_problem c;

/* Copies the parameters into constant memory, ordered on the stream before the
 * kernels that read them. */
static cudaError_t set_parameters(const struct nbody_problem *p, cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(c, p, sizeof *p, 0, cudaMemcpyHostToDevice, stream);
}

__global__ void force_float4(void)
{
    __shared__ float4 tile[THREADS]; /* x, y, z, mass */
    const int n = c.n;
    const float epssq = c.epssq;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
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
        #pragma unroll 128
        for (int j2 = 0; j2 < THREADS; ++j2) { /* TODO (step 14): give each thread BODIES bodies: arrays px[BODIES] ... az[BODIES], bodies first +
     * b * THREADS, an inner #pragma unroll loop over b inside the j2 loop, and
     * blocks for THREADS * BODIES bodies each. */
            float4 q = tile[j2]; /* one 16-byte shared load, broadcast to the warp */
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
    if (i < n) {
        c.accx[i] = ax;
        c.accy[i] = ay;
        c.accz[i] = az;
    }
}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    force_float4<<<blocks, THREADS, 0, stream>>>();
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

STEP_TODO("four bodies per thread (register blocking), 256 threads per block");
DEFINE_STEP(force_float4, THREADS, 0, launch);
