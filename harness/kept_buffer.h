/* \brief Memory a row keeps from one launch to the next, grown when a larger problem comes.
 *
 * A library row's device scratch (CUB's temporary storage, cuSPARSE's buffer): the
 * first launch of a size asks the library how much it needs and reserves it (the
 * runner never times a size's first launch); every launch then lets the library use
 * it, as a program would. A CPU row's pinned host buffer (harness/cpu_row_stream.h):
 * what its loop reads or writes, copied asynchronously in the runner's stream. One
 * function reserves both; only the allocator differs. */
#ifndef LAB_KEPT_BUFFER_H
#define LAB_KEPT_BUFFER_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/* Where a kept buffer lives: a static one left zero is the device's. */
enum kept_place {
    KEPT_ON_DEVICE,   /* cudaMalloc */
    KEPT_PINNED_HOST, /* cudaMallocHost: a CPU row's, so its copies are asynchronous */
};

struct kept_buffer {
    enum kept_place place;
    void *data;
    size_t bytes;
};

/* Gives b's memory back, after the device is done with it (an earlier launch may still
 * be using it): before b grows, and where a row reserved more than it keeps (the
 * workspace of candidates it timed and dropped) and reserves again. */
static inline cudaError_t kept_buffer_release(struct kept_buffer *b)
{
    cudaError_t status;
    if (b->data == NULL)
        return cudaSuccess;
    if ((status = cudaDeviceSynchronize()) != cudaSuccess)
        return status;
    if ((status = b->place == KEPT_PINNED_HOST ? cudaFreeHost(b->data) : cudaFree(b->data)) != cudaSuccess)
        return status;
    b->data = NULL;
    b->bytes = 0;
    return cudaSuccess;
}

/* At least bytes of b, in its place. Growing it waits for the device first (untimed:
 * the runner never times the first launch of a size). */
static inline cudaError_t kept_buffer_reserve(struct kept_buffer *b, size_t bytes)
{
    if (bytes <= b->bytes && b->data != NULL)
        return cudaSuccess;
    int pinned = b->place == KEPT_PINNED_HOST;
    cudaError_t status = kept_buffer_release(b);
    if (status != cudaSuccess)
        return status;
    size_t asked = bytes > 0 ? bytes : 1;
    status = pinned ? cudaMallocHost(&b->data, asked) : cudaMalloc(&b->data, asked);
    if (status != cudaSuccess)
        return status;
    b->bytes = bytes;
    return cudaSuccess;
}

#endif
