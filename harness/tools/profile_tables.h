/* The profile tables of the documents (bin/guide-tables): a lab's steps as make profile
 * measured them, generated between
 *   <!-- profile-table LAB GPU-DIR [STEP...] -->
 *   <!-- end results-table -->
 * from PROFILES/GPU-DIR/LAB.csv (data/profiles): each step's newest profiling of the
 * solutions (or only the STEPs named), its kernels added up (profile_step_total), in
 * the lab's step order, under one caption line naming the ncu version, the clocks,
 * the size and the dates. Where the file does not exist yet, one line saying how to
 * record it stands in for the table. */
#ifndef LAB_PROFILE_TABLES_H
#define LAB_PROFILE_TABLES_H

#include <stddef.h>

/* The table as Markdown into *out (malloc'd; the caller frees it): 0, or -1 with one
 * line in why (no such lab, step or file, no profiled step). */
int profile_table(const char *profiles, const char *lab, const char *gpu_dir, char *const *steps,
                  int nsteps, char **out, char *why, size_t why_len);

#endif
