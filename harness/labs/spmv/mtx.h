/* Reading a Matrix Market file (NIST's exchange format, the SuiteSparse collection's):
 * "%%MatrixMarket matrix coordinate FIELD SYMMETRY", comment lines starting with %,
 * a line "rows cols entries", then one line "i j [value]" per entry, 1-based. FIELD is
 * real, integer or pattern (every value 1); SYMMETRY general or symmetric (the file
 * holds the lower triangle; each entry off the diagonal stands for two). Dense
 * ("array") files, complex, hermitian and skew-symmetric ones are refused. Pure C. */
#ifndef LAB_SPMV_MTX_H
#define LAB_SPMV_MTX_H

#include <stddef.h>

#include "matrices.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a matrix of rows x cols with nonzeros stored entries can be read and run:
 * 0, or -1 with a reason in why (the reader puts "path:line: " before it). */
typedef int (*mtx_size_check)(long rows, long cols, long nonzeros, char *why, size_t why_len);

/* Reads path into a (rows sorted by column, duplicates kept: y sums them); 0 on
 * success, else -1 with "path:line: reason" in why (line 0 when the file cannot be
 * opened or memory runs out) and nothing allocated. fits (NULL: none) judges the size
 * line before anything of that size is allocated. */
int mtx_read(const char *path, struct csr_matrix *a, mtx_size_check fits, char *why,
             size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
