/* The resource suite's expectation files: NAME.expect beside NAME.res in
 * tests/fixtures/resources/ (the README there gives the format), what the parser must
 * read from the compiler's report. tests/test_resources.c uses them. */
#ifndef LAB_TESTS_RESOURCE_EXPECTATIONS_H
#define LAB_TESTS_RESOURCE_EXPECTATIONS_H

#include <stddef.h>

#include "resources.h"

enum { EXPECT_MAX_KERNELS = 32 };

struct expectation {
    int count; /* what resources_parse must return: -1 for "none" */
    struct kernel_resources k[EXPECT_MAX_KERNELS];
};

/* Reads path into e: 0, or -1 with "path:line: reason" in why. */
int expectation_load(const char *path, struct expectation *e, char *why, size_t len);
/* The first difference between what was parsed (count kernels of got) and what is
 * expected, in words in msg, or 0 when there is none. */
int expectation_differs(const struct kernel_resources *got, int count,
                        const struct expectation *want, char *msg, size_t len);

#endif
