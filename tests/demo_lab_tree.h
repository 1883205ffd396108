/* The demo lab's own tree, shared by its suites (tests/test_demo_lab.c, which defines
 * these, tests/test_grading_demo_lab.c, tests/test_slurm.c and the SASS suites,
 * tests/test_grading_sass.c and tests/test_techniques_sass.c): the shared harness
 * with the throwaway lab of tests/fixtures/demo-lab and no other, in which the shared
 * tests run what needs a lab, so that none of them names a real one. */
#ifndef LAB_DEMO_LAB_TREE_H
#define LAB_DEMO_LAB_TREE_H

#include <stddef.h>

#include "step_table.h"

/* A fresh temporary folder holding the shared harness and the throwaway lab of
 * tests/fixtures/demo-lab alone (tests/fixtures/demo-lab-tree/make-tree.sh), with
 * targets (NULL ended, at most 10) made there. Returns its path (the caller removes
 * the tree and frees the path), or NULL with the reason, make's log included, in out. */
char *demo_lab_make_tree(char *const targets[], char *out, size_t out_len);

/* The same with the files of overlay (a folder relative to the repository root, laid
 * out as tests/fixtures/demo-lab; NULL: none) copied over the demo lab's before make:
 * e.g. the rubric of tests/fixtures/sass/demo-lab. */
char *demo_lab_make_tree_over(const char *overlay, char *const targets[], char *out,
                              size_t out_len);

/* The demo lab's step table, for tests that judge its rubric in this process: read
 * from its lab.def by the same reader as every lab's (harness/lab_step_table.c), but
 * not in the registry of real labs (step_table_find does not know it). */
extern const struct step_table *const demo_lab_table;

/* Removes *tree (a demo_lab_make_tree's) and everything in it, frees the path and sets
 * *tree to NULL; nothing when *tree is NULL. */
void demo_lab_remove_tree(char **tree);

/* Runs args (NULL ended; args[0] found on PATH or relative to tree) with tree as its
 * working folder, the assignments of env (NULL ended, may be NULL) added to the
 * environment; output captured as run_capture does (util.h). Returns the exit code. */
int demo_lab_run(const char *tree, const char *const env[], char *const args[], char *out,
                 size_t out_len, char *err, size_t err_len);


#endif
