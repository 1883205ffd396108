/* spmv-pattern: the nonzeros of a small matrix of each generated class, one line
 * "class row column" each, for the sparsity-pattern figure (patterns.gp). The same
 * generator as the lab's (matrices.c), at sizes a picture can show: 64 to 400 rows. */
#include <stdio.h>

#include "matrices.h"
#include "rng.h"

int main(void)
{
    static const long sizes[][3] = {{SPMV_LAPLACE2D, 16, 5}, {SPMV_STENCIL27, 6, 27}, {SPMV_RANDOM, 256, 8},
                                    {SPMV_POWERLAW, 256, 8}, {SPMV_BANDED, 256, 8}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; ++c) {
        struct csr_matrix a;
        if (spmv_generate(sizes[c][0], sizes[c][1], sizes[c][2], RNG_DEFAULT_SEED, &a) != 0) {
            fprintf(stderr, "spmv-pattern: out of memory\n");
            return 1;
        }
        printf("# %s: %d rows, %ld nonzeros\n", spmv_class_name(sizes[c][0]), a.rows, a.nnz);
        for (int i = 0; i < a.rows; ++i)
            for (int e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e)
                printf("%zu %d %d\n", c, i, a.col_idx[e]);
        printf("\n\n");
        csr_free(&a);
    }
    return 0;
}
