/* The demo lab's own tree, shared by its suites (tests/test_demo_lab.c, which defines
 * it, and tests/test_grading_demo_lab.c). */
#ifndef LAB_DEMO_LAB_TREE_H
#define LAB_DEMO_LAB_TREE_H

#include <stddef.h>

/* A fresh temporary folder holding the shared harness and the throwaway lab of
 * tests/fixtures/demo-lab alone (tests/fixtures/demo-lab-tree/make-tree.sh), with
 * targets (NULL ended, at most 10) made there. Returns its path (the caller removes
 * the tree and frees the path), or NULL with the reason, make's log included, in out. */
char *demo_lab_make_tree(char *const targets[], char *out, size_t out_len);

/* make's own settings from a `make test` above, cleared for a make in the tree. */
extern const char *const demo_lab_plain_make[];

#endif
