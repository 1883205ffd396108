/* \brief Device scratch memory a library row's call asks for, kept between launches.
 *
 * CUB's temporary storage and the like: the first launch of a size asks the library
 * how much it needs and allocates it (the runner never times a size's first launch);
 * every launch then lets the library use it, as a program would. Written once for the
 * library rows of every lab. */
#ifndef LAB_LIBRARY_SCRATCH_H
#define LAB_LIBRARY_SCRATCH_H

#include <stddef.h>
#include <cuda_runtime_api.h>

struct library_scratch {
    void *data;
    size_t bytes;
};

/* At least bytes of s on the device. An earlier launch may still be using the old
 * scratch, so growing it waits for the device first. */
static inline cudaError_t library_scratch_reserve(struct library_scratch *s, size_t bytes)
{
    if (bytes <= s->bytes && s->data != NULL)
        return cudaSuccess;
    cudaError_t status;
    if (s->data != NULL && ((status = cudaDeviceSynchronize()) != cudaSuccess ||
                            (status = cudaFree(s->data)) != cudaSuccess))
        return status;
    s->data = NULL;
    s->bytes = 0;
    if ((status = cudaMalloc(&s->data, bytes > 0 ? bytes : 1)) != cudaSuccess)
        return status;
    s->bytes = bytes;
    return cudaSuccess;
}

#endif
