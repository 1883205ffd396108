/* Whose kernels a step runs: the kernels its own source file defines (and the lab's
 * harness headers it may include, the grading tree's), against those its binary holds
 * (the SASS listing, no GPU needed: a CUB or Thrust call instantiates the library's
 * kernels into the student's own object; its --report lists them too, as the compiler
 * reported them) and those it launched (the launch log of its
 * speed run, launches.h). A library call stands in for the step's work and earns no
 * technique and no speed points; library calls belong in the rows beside the steps.
 * Pure C, tested without a GPU (tests/test_launches.c). */
#ifndef LAB_GRADING_OWN_KERNELS_H
#define LAB_GRADING_OWN_KERNELS_H

#include <stddef.h>

#include "launches.h"

#define OWN_KERNELS_MAX 64
struct own_kernels {
    char names[OWN_KERNELS_MAX][96];
    size_t count;
};

/* Adds the name of every kernel (__global__ function) text defines: "fill" for
 * "__global__ void __launch_bounds__(256) fill(float *out)" or
 * "template <int N> __global__ void fill(...)". Comments are skipped. */
void own_kernels_add_source(struct own_kernels *own, const char *text);

/* The kernels a step may run, into own (emptied first): those its source file defines
 * and those of its lab's harness headers, every *.cuh and *.h in lab_dir (a transpose
 * the lab provides). Grading and make profile both ask this. */
void own_kernels_of_step(struct own_kernels *own, const char *source_path, const char *lab_dir);

/* Is the kernel named name (mangled, demangled or plain, as a SASS listing or CUPTI
 * writes it) one of own's? */
int own_kernels_has(const struct own_kernels *own, const char *name);

/* The first kernel of a SASS listing (harness/sass-listing.sh) that is not own's, its
 * name as written in the source (launch_kernel_base_name, with its scope: 
 * "cub::...::DeviceReduceKernel") into foreign; 0 when there is none. */
int own_kernels_foreign_in_listing(const struct own_kernels *own, const char *listing,
                                   char *foreign, size_t foreign_len);

/* The first of the count kernel names (as the compiler names them: the step's
 * --report lists every kernel compiled into it) that is not own's, as
 * own_kernels_foreign_in_listing writes it; 0 when there is none. */
int own_kernels_foreign_in_names(const struct own_kernels *own, char (*names)[256],
                                 size_t count, char *foreign, size_t foreign_len);

/* What a run launched (the launch log's kernels), judged: 1 and one line into why when
 * a kernel that ran is not own's (a library's), or when main, the kernel DEFINE_STEP
 * names, did not run or did less than main_share of the GPU time of the step's kernels
 * (its technique is then not what ran: a decoy; the rubric's main-kernel-share); 0
 * otherwise. foreign (may be NULL) is set when a kernel was not own's. */
int own_kernels_judge_launches(const struct own_kernels *own, const char *main, double main_share,
                               const struct launch_kernel *ran, size_t count, int *foreign,
                               char *why, size_t why_len);

#endif
