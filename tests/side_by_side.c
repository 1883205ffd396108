/* The registry of side-by-side test cases (side_by_side.h). */
#include "side_by_side.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CASES 256
static struct side_by_side_case registered[MAX_CASES];
static size_t registered_count;

TCase *side_by_side_tcase(Suite *s, const char *suite, const char *name, int timeout_s,
                          double gpu_gb)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, timeout_s);
    tcase_set_tags(tc, gpu_gb > 0 ? SIDE_BY_SIDE_TAG " " SIDE_BY_SIDE_LONG_TAG : SIDE_BY_SIDE_TAG);
    suite_add_tcase(s, tc);
    for (size_t i = 0; i < registered_count; ++i)
        if (strcmp(registered[i].suite, suite) == 0 && strcmp(registered[i].name, name) == 0)
            return tc;
    if (registered_count == MAX_CASES) { /* a test-writing error: say it, loudly */
        fprintf(stderr, "side_by_side_tcase: more than %d cases\n", MAX_CASES);
        abort();
    }
    registered[registered_count] = (struct side_by_side_case){suite, name, gpu_gb};
    ++registered_count;
    return tc;
}

size_t side_by_side_cases(const char *suite, struct side_by_side_case *cases, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < registered_count && n < max; ++i)
        if (strcmp(registered[i].suite, suite) == 0)
            cases[n++] = registered[i];
    return n;
}
