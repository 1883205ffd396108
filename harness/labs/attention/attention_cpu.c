/* The attention lab's CPU side (attention_cpu.h says what and why). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#include "attention_cpu.h"
#include "rng.h"

float attention_bf16_to_float(uint16_t bits)
{
    uint32_t word = (uint32_t)bits << 16;
    float x;
    memcpy(&x, &word, sizeof x);
    return x;
}

uint16_t attention_float_to_bf16(float x)
{
    uint32_t word;
    memcpy(&word, &x, sizeof word);
    if (isnan(x))
        return (uint16_t)((word >> 16) | 0x40u);
    word += 0x7FFFu + ((word >> 16) & 1u);
    return (uint16_t)(word >> 16);
}

void attention_fill_inputs(uint64_t seed, long bh, int n, int d, uint16_t *q, uint16_t *k,
                           uint16_t *v)
{
    long rows = bh * (long)n;
#pragma omp parallel for schedule(static)
    for (long r = 0; r < rows; ++r) {
        long i = r % n;
        float spike = i % ATTENTION_SPIKE_EVERY == ATTENTION_SPIKE_ROW ? ATTENTION_SPIKE_SCALE : 1.0f;
        float tail = i == n - 1 ? ATTENTION_TAIL_SCALE : 1.0f;
        for (int c = 0; c < d; ++c) {
            uint64_t at = (uint64_t)r * (uint64_t)d + (uint64_t)c;
            q[at] = attention_float_to_bf16(spike * attention_bf16_to_float(attention_float_to_bf16(
                                                        rng_uniform_at(seed, 1, at, -1.0f, 1.0f))));
            k[at] = attention_float_to_bf16(rng_uniform_at(seed, 2, at, -1.0f, 1.0f));
            v[at] = attention_float_to_bf16(tail * attention_bf16_to_float(attention_float_to_bf16(
                                                      rng_uniform_at(seed, 3, at, -1.0f, 1.0f))));
        }
    }
}

void attention_reference_row(const uint16_t *q, const uint16_t *k, const uint16_t *v, int n,
                             int d, int causal, float scale, long h, long i, double *o,
                             double *abs_pv)
{
    size_t head = (size_t)h * (size_t)n * (size_t)d;
    const uint16_t *qi = q + head + (size_t)i * d;
    int keys = causal ? (int)i + 1 : n;
    double *s = malloc((size_t)keys * sizeof *s);
    double qd[ATTENTION_MAX_D];
    for (int c = 0; c < d; ++c)
        qd[c] = attention_bf16_to_float(qi[c]);
    double max = -INFINITY;
    for (int j = 0; j < keys; ++j) {
        const uint16_t *kj = k + head + (size_t)j * d;
        double dot = 0.0;
        for (int c = 0; c < d; ++c)
            dot += qd[c] * attention_bf16_to_float(kj[c]);
        s[j] = dot * (double)scale;
        if (s[j] > max)
            max = s[j];
    }
    double sum = 0.0;
    for (int j = 0; j < keys; ++j) {
        s[j] = exp(s[j] - max);
        sum += s[j];
    }
    for (int c = 0; c < d; ++c)
        o[c] = abs_pv[c] = 0.0;
    for (int j = 0; j < keys; ++j) {
        const uint16_t *vj = v + head + (size_t)j * d;
        double p = s[j] / sum;
        for (int c = 0; c < d; ++c) {
            double x = attention_bf16_to_float(vj[c]);
            o[c] += p * x;
            abs_pv[c] += p * fabs(x);
        }
    }
    free(s);
}

double attention_tolerance(double reference, double abs_pv)
{
    return ATTENTION_UNIT_ROUNDOFF * (fabs(reference) + 2.0 * abs_pv);
}

void attention_cpu_forward(const struct attention_problem *p)
{
    long rows = p->bh * (long)p->n;
    int n = p->n, d = p->d;
#pragma omp parallel for schedule(dynamic, 16)
    for (long r = 0; r < rows; ++r) {
        long h = r / n, i = r % n;
        size_t head = (size_t)h * (size_t)n * (size_t)d;
        float qf[ATTENTION_MAX_D], acc[ATTENTION_MAX_D];
        for (int c = 0; c < d; ++c) {
            qf[c] = attention_bf16_to_float(p->q_host[head + (size_t)i * d + c]) * p->scale;
            acc[c] = 0.0f;
        }
        int keys = p->causal ? (int)i + 1 : n;
        float max = -INFINITY, sum = 0.0f;
        for (int j = 0; j < keys; ++j) {
            const uint16_t *kj = p->k_host + head + (size_t)j * d, *vj = p->v_host + head + (size_t)j * d;
            float s = 0.0f;
            for (int c = 0; c < d; ++c)
                s += qf[c] * attention_bf16_to_float(kj[c]);
            if (s > max) { /* a new maximum: what was summed so far is rescaled */
                float alpha = expf(max - s);
                sum *= alpha;
                for (int c = 0; c < d; ++c)
                    acc[c] *= alpha;
                max = s;
            }
            float e = expf(s - max);
            sum += e;
            for (int c = 0; c < d; ++c)
                acc[c] += e * attention_bf16_to_float(vj[c]);
        }
        for (int c = 0; c < d; ++c)
            p->o_host[head + (size_t)i * d + c] = attention_float_to_bf16(acc[c] / sum);
    }
}

int attention_cpu_threads(void)
{
    return omp_get_max_threads();
}

double attention_flops(long bh, long n, long d, int causal)
{
    double f = 4.0 * (double)bh * (double)n * (double)n * (double)d;
    return causal ? f / 2.0 : f;
}

double attention_bytes(long bh, long n, long d, int scores)
{
    double b = 4.0 * 2.0 * (double)bh * (double)n * (double)d;
    if (scores)
        b += 4.0 * 4.0 * (double)bh * (double)n * (double)n;
    return b;
}
