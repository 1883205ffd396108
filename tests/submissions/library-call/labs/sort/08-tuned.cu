/* tests/submissions/library-call: a deliberately wrong sort step 08 for grading.
 *
 * Hands the sort to CUB (cub::DeviceRadixSort::SortKeys) and names an empty kernel as
 * the step's. The result is right and fast.
 * Expect: build, correct, memcheck and racecheck pass; the technique point is lost
 * (no shared memory, no VOTE in the named kernel's SASS; and CUB's kernels, which its
 * --report lists beside the named one, are not the step's own), and so are the speed
 * points: a library's kernel ran (harness/grading/own_kernels.h). The same folder
 * holds reduce step 09 calling cub::DeviceReduce::Sum.
 */
#include <cub/device/device_radix_sort.cuh>

#include "sort.h"
#include "step_kernel.h"

__global__ void onesweep_tuned_pass(void) {}

static void *temp;
static size_t capacity;

static cudaError_t launch(const void *problem, cudaStream_t stream)
{
    const struct sort_problem *p = (const struct sort_problem *)problem;
    size_t need = 0;
    cudaError_t status = cub::DeviceRadixSort::SortKeys(NULL, need, p->keys_in, p->keys_out,
                                                        (int)p->n, 0, 32, stream);
    if (status == cudaSuccess && need > capacity) {
        if (temp != NULL && ((status = cudaDeviceSynchronize()) != cudaSuccess ||
                             (status = cudaFree(temp)) != cudaSuccess))
            return status;
        temp = NULL;
        capacity = 0;
        if ((status = cudaMalloc(&temp, need)) == cudaSuccess)
            capacity = need;
    }
    if (status == cudaSuccess)
        status = cub::DeviceRadixSort::SortKeys(temp, need, p->keys_in, p->keys_out, (int)p->n, 0,
                                                32, stream);
    if (status == cudaSuccess)
        onesweep_tuned_pass<<<1, 32, 0, stream>>>();
    return status != cudaSuccess ? status : cudaGetLastError();
}

DEFINE_STEP(onesweep_tuned_pass, 32, 0, launch);
