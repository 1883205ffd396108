/* Static resource usage of compiled kernels, without a GPU: parsed from the
 * compiler's report (nvcc --resource-usage, i.e. ptxas -v), which each step binary
 * embeds. */
#ifndef LAB_RESOURCES_H
#define LAB_RESOURCES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kernel_resources {
    char function[256];      /* mangled name as ptxas prints it */
    char arch[16];           /* "sm_90" */
    int registers;
    size_t shared_bytes;     /* static shared memory per block */
    size_t local_bytes;      /* local memory per thread: the whole stack (spill slots live inside
                              * it), as cudaFuncGetAttributes().localSizeBytes reports it */
    size_t spill_store_bytes;
    size_t spill_load_bytes;
    size_t constant_bytes;   /* user __constant__ (bank 3 / cmem[3]); 0 if none */
};

/* Parses every kernel entry found in the text; returns how many were stored in
 * out[0..max-1], or -1 when the text holds none. */
int resources_parse(const char *text, struct kernel_resources *out, int max);

/* A "Potential Performance Loss" that ptxas reported (e.g. C7520: wgmma.mma_async
 * instructions serialized, every product waiting for the one before). */
struct ptxas_loss {
    char code[16];      /* "C7520" */
    char message[512];  /* what ptxas says, without the function */
    char function[256]; /* the mangled function it names ("" when none) */
};

/* The performance losses ptxas reports in text, in order, at most max stored in out;
 * returns how many were found. */
int resources_performance_losses(const char *text, struct ptxas_loss *out, int max);

#ifdef __cplusplus
}
#endif
#endif
