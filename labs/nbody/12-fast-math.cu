/* Step 12 - fast-math flags.   *** YOUR TURN ***
 * Guide: labs/nbody/README.md#step-12--fast-math
 *
 * What changed from 11: no code change: the step table compiles this file with -use_fast_math.
 * Why: fast math flushes denormals to zero (-ftz=true), uses approximate division
 * and square root, and makes rsqrtf one MUFU.RSQ with no denormal handling. The
 * tolerance factor goes to 32.
 * Expect: fewer instructions. Burtscher: 1.00 / 1.18 / 1.15.
 * Run:  make run LAB=nbody STEP=12    (default 131072 bodies; RUN_ARGS="--n 1000" for an awkward size)
 *
 * This file is step 11's solution: it runs and passes as it is. Make the change
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

__global__ void force_shared(void)
{
    __shared__ float posxs[THREADS], posys[THREADS], poszs[THREADS], masss[THREADS];
    const int n = c.n;
    const float epssq = c.epssq;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    /* threads past the last body still load tiles and reach every barrier */
    float px = 0.0f, py = 0.0f, pz = 0.0f;
    if (i < n)
        px = c.posx[i], py = c.posy[i], pz = c.posz[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j1 = 0; j1 < n; j1 += THREADS) {
        /* a tile that hangs over the end is padded with massless bodies at the
         * origin: they add exactly zero, and every tile has THREADS bodies */
        int idx = j1 + threadIdx.x;
        posxs[threadIdx.x] = idx < n ? c.posx[idx] : 0.0f;
        posys[threadIdx.x] = idx < n ? c.posy[idx] : 0.0f;
        poszs[threadIdx.x] = idx < n ? c.posz[idx] : 0.0f;
        masss[threadIdx.x] = idx < n ? c.mass[idx] : 0.0f;
        __syncthreads();
        #pragma unroll 128
        for (int j2 = 0; j2 < THREADS; ++j2) { /* TODO (step 12): nothing to edit: lab.def gives this step -use_fast_math. Compare the SASS
     * (cuobjdump -sass) of steps 11 and 12 around MUFU.RSQ. */
            float dx = posxs[j2] - px;
            float dy = posys[j2] - py;
            float dz = poszs[j2] - pz;
            float dsq = dx * dx + (dy * dy + (dz * dz + epssq));
            float dinv = rsqrtf(dsq);
            float scale = masss[j2] * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;
        }
        __syncthreads(); /* everyone is done with the tile before it is overwritten */
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
    force_shared<<<blocks, THREADS, 0, stream>>>();
    return cudaGetLastError();
}

/* v += a kick, x += v drift, one thread per body */
__global__ void advance_soa(float kick, float drift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < c.n) {
        c.velx[i] += c.accx[i] * kick;
        c.vely[i] += c.accy[i] * kick;
        c.velz[i] += c.accz[i] * kick;
        c.posx[i] += c.velx[i] * drift;
        c.posy[i] += c.vely[i] * drift;
        c.posz[i] += c.velz[i] * drift;
    }
}

static cudaError_t advance(const struct nbody_problem *p, float kick, float drift, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    advance_soa<<<blocks, THREADS, 0, stream>>>(kick, drift);
    return cudaGetLastError();
}

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return nbody_leapfrog((const struct nbody_problem *)problem, stream, forces, advance);
}

STEP_TODO("none in the code: -use_fast_math from the step table");
DEFINE_STEP(force_shared, THREADS, 0, launch);
