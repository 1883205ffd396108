# Writes solutions/nbody/*.cu and labs/nbody/*.cu (run from the repository root).
import os
S = {}  # id -> dict(name, head, body, entry, tpb)

RUN = lambda i, n: f""" * Run:  make run LAB=nbody STEP={i}    (default {n} bodies; RUN_ARGS="--n 1000" for an awkward size)"""

LAUNCH = """
static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    return nbody_leapfrog((const struct nbody_problem *)problem, stream, forces, advance);
}
"""

def aos_adv(one):
    if one:
        return """
/* v += a kick, x += v drift for every body, by the one thread */
__global__ void advance_one_thread(int n, float kick, float drift, struct nbody_body *body)
{
    for (int i = 0; i < n; ++i) {
        body[i].velx += body[i].accx * kick;
        body[i].vely += body[i].accy * kick;
        body[i].velz += body[i].accz * kick;
        body[i].posx += body[i].velx * drift;
        body[i].posy += body[i].vely * drift;
        body[i].posz += body[i].velz * drift;
    }
}

static cudaError_t advance(const struct nbody_problem *p, float kick, float drift, cudaStream_t stream)
{
    advance_one_thread<<<1, 1, 0, stream>>>(p->n, kick, drift, p->body);
    return cudaGetLastError();
}
"""
    return """
/* v += a kick, x += v drift, one thread per body */
__global__ void advance_aos(int n, float kick, float drift, struct nbody_body *body)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        body[i].velx += body[i].accx * kick;
        body[i].vely += body[i].accy * kick;
        body[i].velz += body[i].accz * kick;
        body[i].posx += body[i].velx * drift;
        body[i].posy += body[i].vely * drift;
        body[i].posz += body[i].velz * drift;
    }
}

static cudaError_t advance(const struct nbody_problem *p, float kick, float drift, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status != cudaSuccess)
        return status;
    advance_aos<<<blocks, THREADS, 0, stream>>>(p->n, kick, drift, p->body);
    return cudaGetLastError();
}
"""

SOA_ADV_PARAM = """
/* v += a kick, x += v drift, one thread per body */
__global__ void advance_soa(int n, float kick, float drift, float *posx, float *posy, float *posz,
                            float *velx, float *vely, float *velz, const float *accx,
                            const float *accy, const float *accz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        velx[i] += accx[i] * kick;
        vely[i] += accy[i] * kick;
        velz[i] += accz[i] * kick;
        posx[i] += velx[i] * drift;
        posy[i] += vely[i] * drift;
        posz[i] += velz[i] * drift;
    }
}

static cudaError_t advance(const struct nbody_problem *p, float kick, float drift, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status != cudaSuccess)
        return status;
    advance_soa<<<blocks, THREADS, 0, stream>>>(p->n, kick, drift, p->posx, p->posy, p->posz,
                                                p->velx, p->vely, p->velz, p->accx, p->accy, p->accz);
    return cudaGetLastError();
}
"""

CONST_DECL = """
/* Everything that stays the same for a whole run, in constant memory: every thread
 * of a warp reads the same word, which the constant cache broadcasts. */
__constant__ struct nbody_problem c;

/* Copies the parameters into constant memory, ordered on the stream before the
 * kernels that read them. */
static cudaError_t set_parameters(const struct nbody_problem *p, cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(c, p, sizeof *p, 0, cudaMemcpyHostToDevice, stream);
}
"""

SOA_ADV_CONST = """
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
"""

F4_ADV = """
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
"""

def forces_simple(kname, args_call):
    return f"""
static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status != cudaSuccess)
        return status;
    {kname}<<<blocks, THREADS, 0, stream>>>({args_call});
    return cudaGetLastError();
}}
"""

def forces_const(kname):
    return f"""
static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    {kname}<<<blocks, THREADS, 0, stream>>>();
    return cudaGetLastError();
}}
"""

# ---- the interaction line variants
def inter_aos(inv, cond=True, src="body[j]", pre=""):
    s = f"""dx = {src}.posx - px;
            dy = {src}.posy - py;
            dz = {src}.posz - pz;
            dsq = dx * dx + dy * dy + dz * dz;
            dinv = {inv};
            scale = {src}.mass * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;"""
    return s

k01 = """
/* Burtscher's force loop as the CPU runs it, unchanged, in one GPU thread. */
__global__ void force_one_thread(int n, float epssq, struct nbody_body *body)
{
    for (int i = 0; i < n; ++i) {
        float px = body[i].posx, py = body[i].posy, pz = body[i].posz;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            if (i != j) {
                float dx = body[j].posx - px;
                float dy = body[j].posy - py;
                float dz = body[j].posz - pz;
                float dsq = dx * dx + dy * dy + dz * dz;
                float dinv = 1.0f / sqrtf(dsq + epssq); /*@TODO02@*/
                float scale = body[j].mass * dinv * dinv * dinv;
                ax += dx * scale;
                ay += dy * scale;
                az += dz * scale;
            }
        }
        body[i].accx = ax;
        body[i].accy = ay;
        body[i].accz = az;
    }
}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{
    force_one_thread<<<1, 1, 0, stream>>>(p->n, p->epssq, p->body);
    return cudaGetLastError();
}
""" + aos_adv(True) + LAUNCH + "\nDEFINE_STEP(force_one_thread, 1, 0, launch);\n"

k02 = """
#define THREADS 256

/* One thread per body: the outer loop of step 01 becomes the grid. */
__global__ void force_aos(int n, float epssq, struct nbody_body *body)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float px = body[i].posx, py = body[i].posy, pz = body[i].posz;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            if (i != j) {
                float dx = body[j].posx - px; /*@TODO03@*/
                float dy = body[j].posy - py;
                float dz = body[j].posz - pz;
                float dsq = dx * dx + dy * dy + dz * dz;
                float dinv = 1.0f / sqrtf(dsq + epssq);
                float scale = body[j].mass * dinv * dinv * dinv;
                ax += dx * scale;
                ay += dy * scale;
                az += dz * scale;
            }
        }
        body[i].accx = ax;
        body[i].accy = ay;
        body[i].accz = az;
    }
}
""" + forces_simple("force_aos", "p->n, p->epssq, p->body") + aos_adv(False) + LAUNCH + "\nDEFINE_STEP(force_aos, THREADS, 0, launch);\n"

k03 = """
#define THREADS 256

/* Structure of arrays: neighbouring threads read neighbouring words. */
__global__ void force_soa(int n, float epssq, const float *mass, const float *posx,
                          const float *posy, const float *posz, float *accx, float *accy,
                          float *accz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; /*@TODO04@*/
    if (i < n) {
        float px = posx[i], py = posy[i], pz = posz[i];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            if (i != j) {
                float dx = posx[j] - px;
                float dy = posy[j] - py;
                float dz = posz[j] - pz;
                float dsq = dx * dx + dy * dy + dz * dz;
                float dinv = 1.0f / sqrtf(dsq + epssq);
                float scale = mass[j] * dinv * dinv * dinv;
                ax += dx * scale;
                ay += dy * scale;
                az += dz * scale;
            }
        }
        accx[i] = ax;
        accy[i] = ay;
        accz[i] = az;
    }
}
""" + forces_simple("force_soa", "p->n, p->epssq, p->mass, p->posx, p->posy, p->posz, p->accx,\n                                              p->accy, p->accz") + SOA_ADV_PARAM + LAUNCH + "\nDEFINE_STEP(force_soa, THREADS, 0, launch);\n"

def k_const(inv, loops, todo_dinv, todo_loop):
    if loops == "if":
        loop = f"""        for (int j = 0; j < c.n; ++j) {{ {todo_loop}
            if (i != j) {{
                float dx = c.posx[j] - px;
                float dy = c.posy[j] - py;
                float dz = c.posz[j] - pz;
                float dsq = dx * dx + dy * dy + dz * dz;
                float dinv = {inv}; {todo_dinv}
                float scale = c.mass[j] * dinv * dinv * dinv;
                ax += dx * scale;
                ay += dy * scale;
                az += dz * scale;
            }}
        }}"""
    else:
        body = f"""            float dx = c.posx[j] - px;
            float dy = c.posy[j] - py;
            float dz = c.posz[j] - pz;
            float dsq = dx * dx + dy * dy + dz * dz;
            float dinv = {inv};
            float scale = c.mass[j] * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;"""
        loop = f"""        /* the same body twice: the bodies before i, then those after it */
        for (int j = 0; j < i; ++j) {{ {todo_loop}
{body}
        }}
        for (int j = i + 1; j < c.n; ++j) {{
{body}
        }}"""
    return f"""
#define THREADS 256
{CONST_DECL}
__global__ void force_const(void)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < c.n) {{
        float px = c.posx[i], py = c.posy[i], pz = c.posz[i];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
{loop}
        c.accx[i] = ax;
        c.accy[i] = ay;
        c.accz[i] = az;
    }}
}}
""" + forces_const("force_const") + SOA_ADV_CONST + LAUNCH + "\nDEFINE_STEP(force_const, THREADS, 0, launch);\n"

k04 = k_const("1.0f / sqrtf(dsq + c.epssq)", "if", "/*@TODO05@*/", "")
k05 = k_const("rsqrtf(dsq + c.epssq)", "if", "", "/*@TODO06@*/")
k06 = k_const("rsqrtf(dsq + c.epssq)", "two", "", "/*@TODO07@*/")

def k_shared(ifcheck, unroll, fma, pad, todo=""):
    dsq = "dx * dx + (dy * dy + (dz * dz + epssq))" if fma else "dx * dx + dy * dy + dz * dz"
    dinv = "rsqrtf(dsq)" if fma else "rsqrtf(dsq + epssq)"
    inner = f"""            float dx = posxs[j2] - px;
            float dy = posys[j2] - py;
            float dz = poszs[j2] - pz;
            float dsq = {dsq};
            float dinv = {dinv};
            float scale = masss[j2] * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;"""
    if ifcheck:
        inner = "            if (i != j1 + j2) {\n" + "\n".join("    " + l for l in inner.split("\n")) + "\n            }"
    if pad:
        load = """        /* a tile that hangs over the end is padded with massless bodies at the
         * origin: they add exactly zero, and every tile has THREADS bodies */
        int idx = j1 + threadIdx.x;
        posxs[threadIdx.x] = idx < n ? c.posx[idx] : 0.0f;
        posys[threadIdx.x] = idx < n ? c.posy[idx] : 0.0f;
        poszs[threadIdx.x] = idx < n ? c.posz[idx] : 0.0f;
        masss[threadIdx.x] = idx < n ? c.mass[idx] : 0.0f;
        __syncthreads();
"""
        loop = f"""        #pragma unroll {unroll}
        for (int j2 = 0; j2 < THREADS; ++j2) {{ {todo}
{inner}
        }}"""
    else:
        load = """        int idx = j1 + threadIdx.x;
        if (idx < n) { /* each thread copies one body: coalesced */
            posxs[threadIdx.x] = c.posx[idx];
            posys[threadIdx.x] = c.posy[idx];
            poszs[threadIdx.x] = c.posz[idx];
            masss[threadIdx.x] = c.mass[idx];
        }
        __syncthreads(); /* the tile is complete */
"""
        loop = f"""        int bound = min(n - j1, THREADS);
        for (int j2 = 0; j2 < bound; ++j2) {{ {todo}
{inner}
        }}"""
    eps = "    const float epssq = c.epssq;\n"
    return f"""
#define THREADS 256
{CONST_DECL}
__global__ void force_shared(void)
{{
    __shared__ float posxs[THREADS], posys[THREADS], poszs[THREADS], masss[THREADS];
    const int n = c.n;
{eps}    int i = blockIdx.x * blockDim.x + threadIdx.x;
    /* threads past the last body still load tiles and reach every barrier */
    float px = 0.0f, py = 0.0f, pz = 0.0f;
    if (i < n)
        px = c.posx[i], py = c.posy[i], pz = c.posz[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j1 = 0; j1 < n; j1 += THREADS) {{
{load}{loop}
        __syncthreads(); /* everyone is done with the tile before it is overwritten */
    }}
    if (i < n) {{
        c.accx[i] = ax;
        c.accy[i] = ay;
        c.accz[i] = az;
    }}
}}
""" + forces_const("force_shared") + SOA_ADV_CONST + LAUNCH + "\nDEFINE_STEP(force_shared, THREADS, 0, launch);\n"

k07 = k_shared(True, None, False, False, "/*@TODO08@*/")
k08 = k_shared(True, 8, False, True, "/*@TODO09@*/")
k09 = k_shared(False, 8, False, True, "/*@TODO10@*/")
k10 = k_shared(False, 8, True, True, "/*@TODO11@*/")
k11 = k_shared(False, 128, True, True, "/*@TODO12@*/")
k12 = k11.replace("/*@TODO12@*/", "/*@TODO13@*/")

F4_INTER = """float dx = q.x - px;
            float dy = q.y - py;
            float dz = q.z - pz;
            float dsq = dx * dx + (dy * dy + (dz * dz + epssq));
            float dinv = rsqrtf(dsq);
            float scale = q.w * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;"""

k13 = f"""
#define THREADS 256
{CONST_DECL}
__global__ void force_float4(void)
{{
    __shared__ float4 tile[THREADS]; /* x, y, z, mass */
    const int n = c.n;
    const float epssq = c.epssq;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float px = 0.0f, py = 0.0f, pz = 0.0f;
    if (i < n) {{
        float4 me = c.posm[i];
        px = me.x, py = me.y, pz = me.z;
    }}
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j1 = 0; j1 < n; j1 += THREADS) {{
        int idx = j1 + threadIdx.x;
        tile[threadIdx.x] = idx < n ? c.posm[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        #pragma unroll 128
        for (int j2 = 0; j2 < THREADS; ++j2) {{ /*@TODO14@*/
            float4 q = tile[j2]; /* one 16-byte shared load, broadcast to the warp */
            {F4_INTER}
        }}
        __syncthreads();
    }}
    if (i < n) {{
        c.accx[i] = ax;
        c.accy[i] = ay;
        c.accz[i] = az;
    }}
}}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    force_float4<<<blocks, THREADS, 0, stream>>>();
    return cudaGetLastError();
}}
""" + F4_ADV + LAUNCH + "\nDEFINE_STEP(force_float4, THREADS, 0, launch);\n"

k14 = f"""
#ifndef THREADS
#define THREADS 256 /* threads per block, and bodies per shared-memory tile */
#endif
#ifndef BODIES
#define BODIES 4    /* bodies per thread */
#endif
#ifndef UNROLL
#define UNROLL 16   /* of the loop over a tile */
#endif
constexpr int unroll_factor = UNROLL;
{CONST_DECL}
__global__ void __launch_bounds__(THREADS) force_blocked(void)
{{
    __shared__ float4 tile[THREADS];
    const int n = c.n;
    const float epssq = c.epssq;
    /* this thread's bodies: THREADS apart, so each load of them is coalesced */
    const long first = (long)blockIdx.x * (THREADS * BODIES) + threadIdx.x;
    float px[BODIES], py[BODIES], pz[BODIES], ax[BODIES], ay[BODIES], az[BODIES];
    #pragma unroll
    for (int b = 0; b < BODIES; ++b) {{
        long i = first + (long)b * THREADS;
        float4 me = i < n ? c.posm[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        px[b] = me.x, py[b] = me.y, pz[b] = me.z;
        ax[b] = ay[b] = az[b] = 0.0f;
    }}
    for (int j1 = 0; j1 < n; j1 += THREADS) {{
        int idx = j1 + threadIdx.x;
        tile[threadIdx.x] = idx < n ? c.posm[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        #pragma unroll unroll_factor
        for (int j2 = 0; j2 < THREADS; ++j2) {{
            float4 q = tile[j2]; /* loaded once, used for BODIES interactions */
            #pragma unroll
            for (int b = 0; b < BODIES; ++b) {{ /*@TODO15@*/
                float dx = q.x - px[b];
                float dy = q.y - py[b];
                float dz = q.z - pz[b];
                float dsq = dx * dx + (dy * dy + (dz * dz + epssq));
                float dinv = rsqrtf(dsq);
                float scale = q.w * dinv * dinv * dinv;
                ax[b] += dx * scale;
                ay[b] += dy * scale;
                az[b] += dz * scale;
            }}
        }}
        __syncthreads();
    }}
    #pragma unroll
    for (int b = 0; b < BODIES; ++b) {{
        long i = first + (long)b * THREADS;
        if (i < n) {{
            c.accx[i] = ax[b];
            c.accy[i] = ay[b];
            c.accz[i] = az[b];
        }}
    }}
}}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{{
    unsigned blocks;
    cudaError_t status = nbody_blocks(p->n, THREADS * BODIES, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    force_blocked<<<blocks, THREADS, 0, stream>>>();
    return cudaGetLastError();
}}
""" + F4_ADV + LAUNCH + "\nDEFINE_STEP(force_blocked, THREADS, 0, launch);\n"

k15 = f"""
#define THREADS 256 /* threads per block, and bodies per shared-memory tile */
{CONST_DECL}
/* PARTS threads share one body: each takes every PARTS-th body of a tile, then the
 * PARTS partial sums (held by PARTS neighbouring lanes) are added with shuffles. */
template <int PARTS>
__device__ __forceinline__ void force_parts(void)
{{
    __shared__ float4 tile[THREADS];
    const int n = c.n;
    const float epssq = c.epssq;
    const int part = threadIdx.x % PARTS;
    const long i = (long)blockIdx.x * (THREADS / PARTS) + threadIdx.x / PARTS;
    float px = 0.0f, py = 0.0f, pz = 0.0f;
    if (i < n) {{
        float4 me = c.posm[i];
        px = me.x, py = me.y, pz = me.z;
    }}
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j1 = 0; j1 < n; j1 += THREADS) {{
        int idx = j1 + threadIdx.x;
        tile[threadIdx.x] = idx < n ? c.posm[idx] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        #pragma unroll 32
        for (int j2 = part; j2 < THREADS; j2 += PARTS) {{
            float4 q = tile[j2]; /* PARTS different words per warp: no bank conflict */
            {F4_INTER}
        }}
        __syncthreads();
    }}
    #pragma unroll
    for (int offset = PARTS / 2; offset > 0; offset /= 2) {{
        ax += __shfl_xor_sync(0xffffffffu, ax, offset, PARTS);
        ay += __shfl_xor_sync(0xffffffffu, ay, offset, PARTS);
        az += __shfl_xor_sync(0xffffffffu, az, offset, PARTS);
    }}
    if (i < n && part == 0) {{
        c.accx[i] = ax;
        c.accy[i] = ay;
        c.accz[i] = az;
    }}
}}

/* one kernel per choice, each with a name of its own for the resource report */
#define PARTS_KERNEL(parts) \
    __global__ void __launch_bounds__(THREADS) force_parts_##parts(void) {{ force_parts<parts>(); }}
PARTS_KERNEL(1)
PARTS_KERNEL(2)
PARTS_KERNEL(4)
PARTS_KERNEL(8)
PARTS_KERNEL(16)
PARTS_KERNEL(32)

/* Threads per body: enough for about two full waves of the GPU (2048 threads per
 * SM), a power of two up to a warp. 1 at large n: then this is step 13. */
static cudaError_t parts_for(long n, int *parts)
{{
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
}}

static cudaError_t forces(const struct nbody_problem *p, cudaStream_t stream)
{{
    int parts = 1;
    unsigned blocks;
    cudaError_t status = parts_for(p->n, &parts);
    if (status == cudaSuccess)
        status = nbody_blocks(p->n, THREADS / parts, &blocks);
    if (status == cudaSuccess)
        status = set_parameters(p, stream);
    if (status != cudaSuccess)
        return status;
    switch (parts) {{ /*@TODO16@*/
    case 1: force_parts_1<<<blocks, THREADS, 0, stream>>>(); break;
    case 2: force_parts_2<<<blocks, THREADS, 0, stream>>>(); break;
    case 4: force_parts_4<<<blocks, THREADS, 0, stream>>>(); break;
    case 8: force_parts_8<<<blocks, THREADS, 0, stream>>>(); break;
    case 16: force_parts_16<<<blocks, THREADS, 0, stream>>>(); break;
    default: force_parts_32<<<blocks, THREADS, 0, stream>>>(); break;
    }}
    return cudaGetLastError();
}}
""" + F4_ADV + LAUNCH + "\n/* resources reported for 32 threads per body, the choice at the default 4096 bodies */\nDEFINE_STEP(force_parts_32, THREADS, 0, launch);\n"

KERN = {"01": k01, "02": k02, "03": k03, "04": k04, "05": k05, "06": k06, "07": k07, "08": k08,
        "09": k09, "10": k10, "11": k11, "12": k12, "13": k13, "14": k14, "15": k15}

H = {}  # id: (name, title, changed, why, expect, todo_text, step_todo)
H["01"] = ("one-thread", "one GPU thread",
 "nothing yet: this is the serial C code (Burtscher's force loop over an array of\n * struct Body) moved to the GPU as it is, and run by a single thread.",
 "the starting point of the sequence. One thread uses one lane of one of the\n * H100's 132 SMs: the slowest way to run this code, slower than the CPU.",
 "1 thread, 1 block per SM used of 132. Burtscher measured 1/72 (CC 1.3), 1/37\n *   (CC 2.0) and 1/68 (CC 3.0) of one CPU core. Default size 2048 bodies: at 131072\n *   this step would run for minutes.",
 "nothing to change: run it and note its time; every later step is measured against it.",
 "none: the baseline; read it and run it")
H["02"] = ("thread-per-body", "one thread per body",
 "the outer loop over i becomes the grid: thread i computes body i's\n * acceleration, 256 threads per block, (n + 255) / 256 blocks; the advance kernel\n * likewise. Threads past the last body do nothing.",
 "the n force computations are independent, and the GPU needs tens of\n * thousands of threads to fill its SMs (an H100 holds 2048 per SM, 270336 in all).",
 "few registers, 8 blocks per SM (limited by threads). Burtscher: 7781x, 6495x,\n *   12150x over one thread. Compare at the same size: --n 2048.",
 "replace the loop over i by one thread per body: i = blockIdx.x * blockDim.x +\n     * threadIdx.x, do the work only if (i < n); launch (n + 255) / 256 blocks of 256\n     * threads for both kernels (nbody_blocks computes the count and refuses too many).",
 "one thread per body, 256 per block, for the force and the advance kernels")
H["03"] = ("soa", "structure of arrays",
 "the bodies are no longer an array of struct Body (40 bytes each) but ten\n * float arrays: mass[], posx[], ... accz[]. Kernels take the arrays they need.",
 "a warp reading body[j].posx touches 32 words 40 bytes apart: ten times the\n * memory traffic it needs. With scalar arrays, a warp's loads of posx[i] are one\n * coalesced 128-byte transaction. In the inner loop every thread reads the same\n * body j, so there the layout hardly matters.",
 "the same registers and blocks. Burtscher: 0.83 / 0.96 / 0.82 (slower!): with all\n *   threads reading the same j, the struct's fields share a cache line and AoS was\n *   better for the loads that dominate.",
 "move from body[] to the scalar arrays p->mass, p->posx, ... p->accz: change both\n     * kernels' parameters and every body[k].field into field[k].",
 "structure of arrays: mass[k], posx[k], ... instead of body[k].mass, ...")
H["04"] = ("constant", "constant-memory parameters",
 "n, eps^2 and the array pointers live in one __constant__ struct, copied once\n * per launch with cudaMemcpyToSymbolAsync; the kernels take no parameters (the\n * advance kernel keeps its kick and drift).",
 "on CC 1.x kernel parameters sat in shared memory; constant memory is cached\n * and broadcast when the whole warp reads one word, as here. Since Fermi parameters\n * are already in a constant bank, so this should change nothing.",
 "one or two registers fewer or more; Burtscher: 1.015 / 1.016 / 0.971. Expect\n *   no change on the H100 beyond noise.",
 "put the parameters in a __constant__ struct nbody_problem c, copy *p into it\n     * with cudaMemcpyToSymbolAsync before each launch, and read c.n, c.posx[j], ...",
 "parameters in __constant__ memory instead of kernel arguments")
H["05"] = ("rsqrtf", "rsqrtf",
 "1.0f / sqrtf(dsq + eps^2) becomes rsqrtf(dsq + eps^2).",
 "by default nvcc computes sqrtf and the division to IEEE precision, a few\n * dozen instructions; rsqrtf is one special-function (MUFU.RSQ) instruction plus a\n * little care for denormals. The result is within 2 ulp: the step table raises this\n * step's tolerance factor from 8 to 16.",
 "fewer instructions per interaction. Burtscher: 0.99 / 1.83 / 1.64 (CC 1.3 used\n *   the fast path already). Expect a large gain on the H100.",
 "replace 1.0f / sqrtf(dsq + c.epssq) by rsqrtf(dsq + c.epssq).",
 "rsqrtf(dsq + eps^2) instead of 1.0f / sqrtf(dsq + eps^2)")
H["06"] = ("two-loops", "two loops instead of if (i != j)",
 "the j loop is split into j < i and j > i; the test goes.",
 "the test is a compare and a predicate per interaction; on CC 1.3 Burtscher\n * suspected divergence. Only one thread in 256 per block diverges at a time.",
 "a few more instructions (two loops). Burtscher: 0.55 / 1.00 / 1.00: not a useful\n *   optimization, and step 07 goes back to one loop.",
 "split the j loop into for (j = 0; j < i; ++j) and for (j = i + 1; j < c.n; ++j)\n     * with the same body and no if.",
 "two loops, j < i and j > i, instead of if (i != j)")
H["07"] = ("shared", "shared-memory tiles",
 "back to step 05's single loop with if (i != j); the bodies are now read in\n * tiles of 256: each thread of the block copies one body's position and mass into\n * shared memory, the block synchronizes, and every thread runs over the tile\n * from shared memory.",
 "each thread streams all n bodies from memory: each body is read n / 256\n * times per block of 256 threads. With tiles, a block reads each body once. Threads\n * past the last body must still load and reach every __syncthreads().",
 "4 KB of shared memory per block. Burtscher: 3.7 / 1.1 / 1.6. The H100's L1\n *   already catches most of those reads, so expect a modest gain.",
 "stage the bodies in __shared__ arrays of THREADS floats, a tile at a time: load\n     * one body per thread (if idx < n), __syncthreads(), loop over min(n - j1, THREADS)\n     * tile entries, __syncthreads(); threads with i >= n must take part too.",
 "tiles of 256 bodies in shared memory; one loop with if (i != j) again")
H["08"] = ("unroll8", "unroll 8",
 "#pragma unroll 8 on the inner loop. To give it a fixed trip count, the last\n * tile is padded with massless bodies at the origin (their terms are exactly zero).",
 "less loop overhead (compare, branch, index) per interaction, and more\n * independent instructions for the scheduler.",
 "a few more registers. Burtscher: 1.07 / 1.16 / 1.07.",
 "pad the tile (idx < n ? value : 0.0f, mass 0), loop over all THREADS entries and\n     * put #pragma unroll 8 on that loop.",
 "#pragma unroll 8 on the inner loop, the last tile padded with massless bodies")
H["09"] = ("if-free", "if-free with softening",
 "if (i != j) is gone.",
 "with eps > 0 the self term is dx = dy = dz = 0 times a finite rsqrtf(eps^2):\n * exactly zero. The test costs instructions in every iteration and blocks scheduling.",
 "fewer instructions. Burtscher: 1.38 / 1.54 / 1.64, the largest gain after tiling.",
 "drop if (i != j1 + j2): softening makes the self term zero.",
 "drop if (i != j): softening makes the self term exactly zero")
H["10"] = ("fma", "FMA-friendly terms",
 "dsq = dx*dx + (dy*dy + (dz*dz + eps^2)); dinv = rsqrtf(dsq).",
 "written this way the three squares and eps^2 become three fused multiply-adds\n * in a chain; left to right, the compiler needs a separate add for eps^2.",
 "one instruction fewer per interaction. Burtscher: 1.03 / 1.05 / 1.06.",
 "write dsq = dx * dx + (dy * dy + (dz * dz + epssq)) and dinv = rsqrtf(dsq).",
 "dsq = dx*dx + (dy*dy + (dz*dz + eps^2)): three FMAs")
H["11"] = ("unroll128", "unroll 128",
 "#pragma unroll 128 instead of 8.",
 "less loop overhead still; but the code grows 16-fold and may not fit the\n * instruction cache.",
 "more registers possible. Burtscher: 1.01 / 1.04 / 0.93: tune, do not assume.",
 "change #pragma unroll 8 to #pragma unroll 128.",
 "#pragma unroll 128 instead of 8")
H["12"] = ("fast-math", "fast-math flags",
 "no code change: the step table compiles this file with -use_fast_math.",
 "fast math flushes denormals to zero (-ftz=true), uses approximate division\n * and square root, and makes rsqrtf one MUFU.RSQ with no denormal handling. The\n * tolerance factor goes to 32.",
 "fewer instructions. Burtscher: 1.00 / 1.18 / 1.15.",
 "nothing to edit: lab.def gives this step -use_fast_math. Compare the SASS\n     * (cuobjdump -sass) of steps 11 and 12 around MUFU.RSQ.",
 "none in the code: -use_fast_math from the step table")
H["13"] = ("float4", "packed float4 positions and mass",
 "positions and mass are one float4 per body (x, y, z, mass); the tile is a\n * float4 array: one 16-byte load (global and shared) instead of four 4-byte ones.",
 "fewer load instructions per interaction; beyond Burtscher (CUDA SDK, GPU Gems 3).",
 "16 bytes x 256 = 4 KB of shared memory, as before; a small gain.",
 "read c.posm[] (float4) instead of the four arrays, keep a __shared__ float4\n     * tile[THREADS], and read q = tile[j2] once per interaction (q.w is the mass).",
 "positions and mass as one float4: one load instead of four")
H["14"] = ("register-blocking", "several bodies per thread",
 "each thread computes BODIES = 4 bodies (THREADS apart), 256 threads per\n * block: every float4 read from the tile serves four interactions.",
 "the shared load and the loop overhead are shared by four interactions, and\n * four independent dependency chains hide the MUFU latency with fewer warps.",
 "more registers (four sets of position and acceleration); 1024 bodies per block,\n *   128 blocks at 131072 bodies: one per SM, 8 warps each. The speed target: >= 2.0e12\n *   interactions/s at 131072 bodies on an H100 (ceiling about 2.4e12).",
 "give each thread BODIES bodies: arrays px[BODIES] ... az[BODIES], bodies first +\n     * b * THREADS, an inner #pragma unroll loop over b inside the j2 loop, and\n     * blocks for THREADS * BODIES bodies each.",
 "four bodies per thread (register blocking), 256 threads per block")
H["15"] = ("threads-per-body", "several threads per body for small n",
 "PARTS threads (a power of two up to 32, chosen at launch so that the grid\n * fills the GPU about twice) share one body: each takes every PARTS-th body of a\n * tile, and the partial sums are added with warp shuffles.",
 "with one thread per body, 4096 bodies are 16 blocks: 16 of 132 SMs busy.\n * Appendix B.8 (8800 GTX): 90 -> 190 GFLOP/s at n = 1024 with 4 threads per body.",
 "a large gain at n = 1024 to 16384 (H100: 3.5x step 13 at 1024, 4.1x at\n *   4096, 1.6x at 16384). PARTS reaches 1 only above about 540000 bodies (8 at\n *   131072, not measured there yet).\n *   Default size 4096.",
 "let PARTS threads share a body: body i = blockIdx.x * (THREADS / PARTS) +\n     * threadIdx.x / PARTS, j2 from part = threadIdx.x % PARTS in steps of PARTS, then\n     * add the partial sums with __shfl_xor_sync(mask, v, offset, PARTS).",
 "several threads per body for small n (partial sums added with shuffles)")

IDS = sorted(KERN)
DEFAULT_N = {"01": 2048, "15": 4096}
import re

def header(i, student):
    name, title, changed, why, expect, todo, _ = H[i]
    prev = "" if i == "01" else " from " + IDS[IDS.index(i) - 1]
    turn = "   *** YOUR TURN ***" if student else ""
    s = f"/* Step {i} - {title}.{turn}\n *\n * What changed{prev}: {changed}\n * Why: {why}\n * Expect: {expect}\n"
    s += RUN(i, DEFAULT_N.get(i, 131072)) + "\n"
    if student:
        s += (" *\n * This file is step " + (IDS[IDS.index(i) - 1] if i != "01" else "01") +
              "'s solution: it runs and passes as it is. Make the change\n * marked TODO; NBODY-NOTES.md and solutions/nbody/ have the rest.\n")
    return s + " */\n#include \"nbody.h\"\n#include \"step.h\"\n"

os.makedirs("solutions/nbody", exist_ok=True)
os.makedirs("labs/nbody", exist_ok=True)
for i in IDS:
    name = H[i][0]
    code = re.sub(r" ?/\*@TODO\d\d@\*/", "", KERN[i])
    open(f"solutions/nbody/{i}-{name}.cu", "w").write(header(i, False) + code)
    prev = IDS[IDS.index(i) - 1] if i != "01" else "01"
    code = KERN[prev]
    marker = f"/*@TODO{i}@*/"
    todo = H[i][5]
    if i == "01":
        code = code.replace("/* Burtscher's force loop", f"/* TODO (step 01): {todo} */\n/* Burtscher's force loop", 1)
    elif marker in code:
        code = code.replace(marker, f"/* TODO (step {i}): {todo} */")
    else:
        raise SystemExit(f"no marker for {i}")
    code = re.sub(r" ?/\*@TODO\d\d@\*/", "", code)
    code = code.replace("\nDEFINE_STEP(", f"\nSTEP_TODO(\"{H[i][6]}\");\nDEFINE_STEP(", 1)
    if i == "12":  # same code, flags only
        pass
    open(f"labs/nbody/{i}-{name}.cu", "w").write(header(i, True) + code)
print("written", len(IDS))
