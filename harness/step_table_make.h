/* A step table as make variables: the one way the Makefile reads lab.def. The C
 * preprocessor reads lab.def into each lab's table (lab_step_table.c); a small tool
 * (harness/tools/step_tables_mk.c) writes every table with this function into
 * build/gen/step-tables.mk, which the Makefile includes. So make and C share one
 * reader, and a STEP line may span lines like any C macro call. */
#ifndef LAB_STEP_TABLE_MAKE_H
#define LAB_STEP_TABLE_MAKE_H

#include <stddef.h>
#include <stdio.h>

#include "step_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes, for lab L:
 *   lab_steps_L := 01-naive 02-tiled ...          the step stems, in order
 *   lab_flags_L_01-naive := -use_fast_math        each step's own nvcc flags
 *   lab_needs_L_01-naive := sm_75                 the oldest GPU it runs on, and
 *   lab_archs_L_01-naive := sm_75 sm_80 ...       every architecture that runs it
 *   lab_rows_L := vendor ...                       the rows beside the steps
 *   lab_row_file_L_vendor := library-vendor.cu    each row's source file
 *   lab_needs_L_vendor, lab_archs_L_vendor         as a step's
 * Returns 0, or -1 with a one-line reason in why when a field cannot be a make word
 * (a stem, row or file with a space, '$', '#' or '%'; flags with '$', '#' or a
 * line break; needs that names no architecture), or when a lab with STEP_PARAMS lines
 * lacks one for a step or row (step_table_check_params): then nothing is written, and
 * the build stops there. */
int step_table_write_make(FILE *out, const struct step_table *table, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
