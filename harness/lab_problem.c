/* Poisoning a lab's outputs before each launch: lab_problem.h. */
#include "lab_problem.h"

#include <string.h>

cudaError_t lab_poison(const struct lab_problem *lab, void *state, int on_host,
                       cudaStream_t stream)
{
    struct lab_output parts[LAB_MAX_OUTPUTS];
    size_t count = lab->outputs(state, parts);
    cudaError_t status = cudaSuccess;
    for (size_t i = 0; i < count && i < LAB_MAX_OUTPUTS && status == cudaSuccess; ++i) {
        const struct lab_output *o = &parts[i];
        if (o->start == NULL || o->width == 0 || o->rows == 0)
            continue;
        if (on_host)
            for (size_t r = 0; r < o->rows; ++r)
                memset((char *)o->start + r * o->pitch, 0xFF, o->width);
        else if (o->rows == 1)
            status = cudaMemsetAsync(o->start, 0xFF, o->width, stream);
        else
            status = cudaMemset2DAsync(o->start, o->pitch, 0xFF, o->width, o->rows, stream);
    }
    return status;
}
