/* The online softmax of one tile of scores in the accumulator layout of wgmma (and of
 * mma.sync, per warp): thread (warp w, lane 4g + t) holds query rows a = 16w + g and
 * b = a + 8, its register 4 nb + e being key 8 nb + 2t + e % 2 of the tile, of row a
 * when e < 2, else of row b; a row's keys are spread over the quad of lanes 4g .. 4g + 3.
 * Written once for attention's steps 09 and 10 and the students' 10 (step 09's code):
 * the maxima (m), the factors (alpha) that move O and the sums (l) to them, O's
 * rescale, and P = exp2(s - m) as BF16 A fragments of k16 blocks (keys 16 kb ..
 * 16 kb + 15): step 09's softmax (tile_maxima<true>, rescale, tile_probabilities<true>),
 * and its end (quad_sums, o_store_direct: O divided by the sums and stored by each
 * thread); and beside it step 10's lean form (its LEAN_SOFTMAX: the mask's test only in
 * the edge tiles' copy, the scale folded into exp2's argument, O's rescale skipped by a
 * warp whose rows kept their maxima). None of it is those steps' lesson; their headers
 * say what they take. The score arrays' sizes are template parameters (regs = keys per
 * tile / 2), so one copy serves every tile width. */
#ifndef LAB_ATTENTION_ONLINE_SOFTMAX_CUH
#define LAB_ATTENTION_ONLINE_SOFTMAX_CUH

#include <math.h>
#include <cuda_bf16.h>

__device__ __forceinline__ unsigned pack_bf16(float lo, float hi)
{
    __nv_bfloat162 x = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned *>(&x);
}

/* One tile's scores as the softmax sees them: masked (a tile across the diagonal or the
 * end: keys past n, or past the row under the causal mask) and scaled to log2 units. */
struct tile_scores {
    int j0, n, causal, row_a, row_b, t;
    bool edge;
    float scale_log2;
    /* register 4 nb + e of S (key j0 + 8 nb + 2t + e % 2 of row a when e < 2, else b) */
    __device__ __forceinline__ float at(float s, int nb, int e) const
    {
        int key = j0 + nb * 8 + 2 * t + (e & 1), i = e < 2 ? row_a : row_b;
        return !edge || (key < n && !(causal && key > i)) ? s * scale_log2 : -INFINITY;
    }
};

/* The score as the lean softmax sees it, unscaled: the mask's test is compiled in only
 * for an edge tile (a tile across the diagonal or the end), so the interior tiles,
 * nearly all of them, carry no per-element branch. */
template <bool edge>
__device__ __forceinline__ float lean_score(const tile_scores &v, float s, int nb, int e)
{
    if (!edge)
        return s;
    int key = v.j0 + nb * 8 + 2 * v.t + (e & 1), i = e < 2 ? v.row_a : v.row_b;
    return key < v.n && !(v.causal && key > i) ? s : -INFINITY;
}

/* Rows a and b's maxima over the quad of lanes that holds them (each lane has a share of
 * the row's columns): what both softmax forms below do once a tile. */
__device__ __forceinline__ void quad_maxima(float &tile_a, float &tile_b)
{
#pragma unroll
    for (int offset = 1; offset < 4; offset <<= 1) {
        tile_a = fmaxf(tile_a, __shfl_xor_sync(0xffffffffu, tile_a, offset));
        tile_b = fmaxf(tile_b, __shfl_xor_sync(0xffffffffu, tile_b, offset));
    }
}

/* exp2 as the one MUFU.EX2 (exp2f adds a range test and two multiplies for results
 * below 2^-126, which P's BF16 and the sums do not need) */
__device__ __forceinline__ float fast_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* The rows' new maxima from the tile's (each lane's share: the quad's maxima are taken
 * here), and the factors alpha that move O and the sums l to them (l moved here, O by
 * the caller). lean: m in score units, alpha = exp2((m - new m) scale_log2) by
 * fast_exp2; else m in log2 units, exp2f. */
template <bool lean>
__device__ __forceinline__ void move_maxima(float tile_a, float tile_b, float scale_log2, float &m_a, float &m_b,
                                            float &l_a, float &l_b, float &alpha_a, float &alpha_b)
{
    quad_maxima(tile_a, tile_b);
    float new_a = fmaxf(m_a, tile_a), new_b = fmaxf(m_b, tile_b); /* finite: key 0 */
    if (lean)
        alpha_a = fast_exp2((m_a - new_a) * scale_log2), alpha_b = fast_exp2((m_b - new_b) * scale_log2);
    else
        alpha_a = exp2f(m_a - new_a), alpha_b = exp2f(m_b - new_b);
    m_a = new_a, m_b = new_b;
    l_a *= alpha_a, l_b *= alpha_b;
}

/* A k16 block of P (p[h][e]: keys 8h + 2t + e % 2 of row a when e < 2, else of row b) as
 * the A fragment of wgmma's register form: four BF16 pairs. */
__device__ __forceinline__ void p_fragment(unsigned (&frag)[4], const float (&p)[2][4])
{
    frag[0] = pack_bf16(p[0][0], p[0][1]);
    frag[1] = pack_bf16(p[0][2], p[0][3]);
    frag[2] = pack_bf16(p[1][0], p[1][1]);
    frag[3] = pack_bf16(p[1][2], p[1][3]);
}

/* Rows a and b's sums, at the end: the quad's four partial sums added. */
__device__ __forceinline__ void quad_sums(float &l_a, float &l_b)
{
#pragma unroll
    for (int offset = 1; offset < 4; offset <<= 1) {
        l_a += __shfl_xor_sync(0xffffffffu, l_a, offset);
        l_b += __shfl_xor_sync(0xffffffffu, l_b, offset);
    }
}

/* The online softmax's first half for one tile: the rows' new maxima (m), and the
 * factors (alpha) that move O and the sums (l) to them (l moved here, O by the caller).
 * in_place: sc is left masked and scaled; else it is left as S's product wrote it (step
 * 10's INTRA_WG_OVERLAP: ptxas serializes the wgmma whose accumulator registers other
 * instructions write while a batch is in flight). */
template <bool in_place, int regs>
__device__ __forceinline__ void tile_maxima(float (&sc)[regs], const tile_scores &v, float &m_a, float &m_b,
                                            float &l_a, float &l_b, float &alpha_a, float &alpha_b)
{
    float tile_a = -INFINITY, tile_b = -INFINITY;
#pragma unroll
    for (int nb = 0; nb < regs / 4; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            float x = v.at(sc[4 * nb + e], nb, e);
            if (in_place)
                sc[4 * nb + e] = x;
            if (e < 2)
                tile_a = fmaxf(tile_a, x);
            else
                tile_b = fmaxf(tile_b, x);
        }
    move_maxima<false>(tile_a, tile_b, v.scale_log2, m_a, m_b, l_a, l_b, alpha_a, alpha_b);
}

/* P = exp2(s - m) of one tile, as BF16 A fragments (pn), and its sums added to l, in
 * either form. Not lean: m in log2 units, exp2f, and flag (in_place) says sc was left
 * masked and scaled by tile_maxima<true>, else it is done here; the sums add each p in
 * turn. Lean: m in score units and the scale folded in, p = exp2(s * scale_log2 -
 * m * scale_log2), one FFMA and one MUFU.EX2 a score; flag (edge) compiles the mask's
 * test in; the sums add a block's p as a tree. */
template <bool lean, bool flag, int regs>
__device__ __forceinline__ void probabilities(const float (&sc)[regs], const tile_scores &v,
                                              unsigned (&pn)[regs / 8][4], float m_a, float m_b, float &l_a,
                                              float &l_b)
{
    const float shift_a = -m_a * v.scale_log2, shift_b = -m_b * v.scale_log2; /* (lean) */
#pragma unroll
    for (int kb = 0; kb < regs / 8; ++kb) {
        float p[2][4];
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                float x = sc[4 * (2 * kb + h) + e];
                if (lean) {
                    p[h][e] = fast_exp2(fmaf(lean_score<flag>(v, x, 2 * kb + h, e), v.scale_log2,
                                             e < 2 ? shift_a : shift_b));
                } else {
                    p[h][e] = exp2f((flag ? x : v.at(x, 2 * kb + h, e)) - (e < 2 ? m_a : m_b));
                    if (e < 2)
                        l_a += p[h][e];
                    else
                        l_b += p[h][e];
                }
            }
        if (lean) {
            l_a += (p[0][0] + p[0][1]) + (p[1][0] + p[1][1]);
            l_b += (p[0][2] + p[0][3]) + (p[1][2] + p[1][3]);
        }
        p_fragment(pn[kb], p);
    }
}

/* Step 09's form (in_place: sc was left masked and scaled by tile_maxima<true>). */
template <bool in_place, int regs>
__device__ __forceinline__ void tile_probabilities(const float (&sc)[regs], const tile_scores &v,
                                                   unsigned (&pn)[regs / 8][4], float m_a, float m_b, float &l_a,
                                                   float &l_b)
{
    probabilities<false, in_place>(sc, v, pn, m_a, m_b, l_a, l_b);
}

/* O moved to the rows' new maxima: register 4c + i of each piece holds row a (i < 2) or
 * row b. */
template <int pieces, int regs>
__device__ __forceinline__ void rescale(float (&acc)[pieces][regs], float alpha_a, float alpha_b)
{
#pragma unroll
    for (int x = 0; x < pieces; ++x)
#pragma unroll
        for (int c = 0; c < regs / 4; ++c) {
            acc[x][4 * c] *= alpha_a, acc[x][4 * c + 1] *= alpha_a;
            acc[x][4 * c + 2] *= alpha_b, acc[x][4 * c + 3] *= alpha_b;
        }
}

/* skip_settled (step 10's LEAN_SOFTMAX 2): a warp whose rows all kept their maxima (alpha
 * exactly 1: exp2 of 0) skips O's multiplies, which later tiles, their maxima settled,
 * mostly need not do. */
template <bool skip_settled, int pieces, int regs>
__device__ __forceinline__ void rescale_if_moved(float (&acc)[pieces][regs], float alpha_a, float alpha_b)
{
    if (skip_settled && !__any_sync(0xffffffffu, alpha_a != 1.0f || alpha_b != 1.0f))
        return;
    rescale(acc, alpha_a, alpha_b);
}

/* The end of a query tile: each thread's pairs of O (D / PV_N pieces of PV_N columns,
 * register 4c + i of piece x being column x PV_N + 8c + 2t + i % 2 of row a when i < 2,
 * else of row b) divided by the rows' sums (inv_a, inv_b: 1 / quad_sums' l) and stored
 * in BF16 straight to the head's n x D matrix o_head, 4 bytes a store, rows past n left
 * out. */
template <int D, int PV_N>
__device__ __forceinline__ void o_store_direct(const float (&acc)[D / PV_N][PV_N / 2], float inv_a, float inv_b,
                                               __nv_bfloat16 *o_head, int n, int row_a, int row_b, int t)
{
    unsigned *o32 = reinterpret_cast<unsigned *>(o_head);
#pragma unroll
    for (int x = 0; x < D / PV_N; ++x)
#pragma unroll
        for (int c8 = 0; c8 < PV_N / 8; ++c8) {
            int c = x * PV_N + c8 * 8 + 2 * t;
            if (row_a < n)
                o32[((long)row_a * D + c) / 2] = pack_bf16(acc[x][4 * c8] * inv_a, acc[x][4 * c8 + 1] * inv_a);
            if (row_b < n)
                o32[((long)row_b * D + c) / 2] = pack_bf16(acc[x][4 * c8 + 2] * inv_b, acc[x][4 * c8 + 3] * inv_b);
        }
}

/* ---- the lean form (step 10's LEAN_SOFTMAX 1 and 2: FlashAttention-3's softmax) ---- */

/* The lean form's first half: the maxima kept in score units (m), so that its second
 * half, probabilities<true, edge>, folds the scale into exp2's argument. */
template <bool edge, int regs>
__device__ __forceinline__ void lean_maxima(const float (&sc)[regs], const tile_scores &v, float &m_a, float &m_b,
                                            float &l_a, float &l_b, float &alpha_a, float &alpha_b)
{
    /* a tree of maxima, not a chain: log2 of regs / 4 dependent FMNMX, not regs / 4 */
    float ma[regs / 4], mb[regs / 4];
#pragma unroll
    for (int nb = 0; nb < regs / 4; ++nb) {
        ma[nb] = fmaxf(lean_score<edge>(v, sc[4 * nb], nb, 0), lean_score<edge>(v, sc[4 * nb + 1], nb, 1));
        mb[nb] = fmaxf(lean_score<edge>(v, sc[4 * nb + 2], nb, 2), lean_score<edge>(v, sc[4 * nb + 3], nb, 3));
    }
    /* each level folds the upper half onto the lower (an odd count's middle stays), in
     * loops of constant length: no local array; five levels cover up to 32 blocks of 8
     * keys (256 keys a tile) */
#define LEAN_TREE_LEVEL(count)                                       \
    _Pragma("unroll") for (int i = 0; i < (count) / 2; ++i)          \
    {                                                                \
        ma[i] = fmaxf(ma[i], ma[i + ((count) + 1) / 2]);             \
        mb[i] = fmaxf(mb[i], mb[i + ((count) + 1) / 2]);             \
    }
    constexpr int c0 = regs / 4, c1 = (c0 + 1) / 2, c2 = (c1 + 1) / 2, c3 = (c2 + 1) / 2, c4 = (c3 + 1) / 2;
    static_assert(c4 <= 2, "the tree of maxima has five levels: 256 keys a tile at most");
    LEAN_TREE_LEVEL(c0)
    LEAN_TREE_LEVEL(c1)
    LEAN_TREE_LEVEL(c2)
    LEAN_TREE_LEVEL(c3)
    LEAN_TREE_LEVEL(c4)
#undef LEAN_TREE_LEVEL
    move_maxima<true>(ma[0], mb[0], v.scale_log2, m_a, m_b, l_a, l_b, alpha_a, alpha_b);
}

/* The whole tile's softmax the lean way: one uniform branch on the edge test. */
template <int regs>
__device__ __forceinline__ void lean_softmax(const float (&sc)[regs], const tile_scores &v, unsigned (&pn)[regs / 8][4],
                                             float &m_a, float &m_b, float &l_a, float &l_b, float &alpha_a,
                                             float &alpha_b)
{
    if (v.edge) {
        lean_maxima<true>(sc, v, m_a, m_b, l_a, l_b, alpha_a, alpha_b);
        probabilities<true, true>(sc, v, pn, m_a, m_b, l_a, l_b);
    } else {
        lean_maxima<false>(sc, v, m_a, m_b, l_a, l_b, alpha_a, alpha_b);
        probabilities<true, false>(sc, v, pn, m_a, m_b, l_a, l_b);
    }
}

#endif
