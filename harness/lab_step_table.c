/* One lab's step table, compiled once per lab by the Makefile with
 *   -DLAB_NAME=<lab> -DLAB_DEF='"labs/<lab>/lab.def"'
 * into step_table_<lab>. lab.def holds three kinds of lines, each read in its own
 * pass: STEP(...) for the steps, CHECK_SIZE(m, n, k) for the sizes every step must
 * get right, ROW("name", "role", "needs", "file", "summary") for the rows beside the
 * steps (a vendor library's, the CPU code the lab starts from), if any; maybe one
 * LABEL_COLUMN("name"), the name of a text column of its results CSV, one
 * RATE_LABEL("unit"), what its gflops column counts when not GFLOP/s, COLUMN lines (its
 * results CSV's own numeric columns), VARIANT lines (the steps and rows that compute
 * a variant of the problem), STEP_PARAMS lines (a lab's own fields per step and row:
 * one each, or none at all), and at most one PROFILE_SIZE(m, n, k): the size make
 * profile runs each step at (step_table.h). */
#include "step_table.h"

#define JOIN_(a, b) a##b
#define JOIN(a, b) JOIN_(a, b)
#define STRING_(x) #x
#define STRING(x) STRING_(x)

#define STEP(id, name, needs, flags, summary) {id, name, needs, flags, summary},
#define CHECK_SIZE(m, n, k)
#define ROW(...)
static const struct step_info steps[] = {
#include LAB_DEF
};
#undef STEP
#undef CHECK_SIZE

#define STEP(...)
#define CHECK_SIZE(m, n, k) {m, n, k},
static const struct check_size check_sizes[] = {
#include LAB_DEF
};
#undef STEP
#undef CHECK_SIZE
#undef ROW

/* The rows, then an empty one: C allows no empty array, and a lab may have no row. */
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(name, role, needs, file, summary) {name, role, needs, file, summary},
static const struct row_info rows[] = {
#include LAB_DEF
    {NULL, NULL, NULL, NULL, NULL}};
#undef STEP
#undef CHECK_SIZE
#undef ROW

/* The label column's name, if lab.def has a LABEL_COLUMN line (guarded there by
 * #ifdef LABEL_COLUMN, so the passes above and a lab's own readers skip it). */
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define LABEL_COLUMN(name) name,
static const char *const label_columns[] = {
#include LAB_DEF
    NULL};
#undef STEP
#undef CHECK_SIZE
#undef ROW
#undef LABEL_COLUMN

/* The rate label, if lab.def has a RATE_LABEL line (guarded there by #ifdef
 * RATE_LABEL, like LABEL_COLUMN), then NULL. */
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define RATE_LABEL(label) label,
static const char *const rate_labels[] = {
#include LAB_DEF
    NULL};
#undef STEP
#undef CHECK_SIZE
#undef ROW
#undef RATE_LABEL

/* The profile size (guarded in lab.def by #ifdef PROFILE_SIZE, as LABEL_COLUMN is):
 * the last PROFILE_SIZE line wins; none leaves {0, 0, 0, 0}. */
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define PROFILE_SIZE(m, n, k) {m, n, k, 1},
static const struct {
    long m, n, k;
    int given;
} profile_sizes[] = {
    {0, 0, 0, 0},
#include LAB_DEF
};
#undef STEP
#undef CHECK_SIZE
#undef ROW
#undef PROFILE_SIZE

/* The lab's own columns (guarded in lab.def by #ifdef COLUMN, as LABEL_COLUMN is), then
 * an empty one: a lab may have none. */
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define COLUMN(name, heading, scale, format) {name, heading, scale, format},
static const struct lab_column columns[] = {
#include LAB_DEF
    {NULL, NULL, 0, NULL}};
#undef STEP
#undef CHECK_SIZE
#undef ROW
#undef COLUMN

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The steps and rows of a variant (guarded in lab.def by #ifdef VARIANT), then an
 * empty one. */
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define VARIANT(name, variant) {name, variant},
static const struct step_variant variants[] = {
#include LAB_DEF
    {NULL, NULL}};
#undef STEP
#undef CHECK_SIZE
#undef ROW
#undef VARIANT

/* The names of the STEP_PARAMS lines (guarded in lab.def by #ifdef STEP_PARAMS): a lab's
 * own per-step fields, which its problem.c reads; the build checks that every step
 * and row has one (step_table_check_params). Then NULL. */
#define STEP(...)
#define CHECK_SIZE(m, n, k)
#define ROW(...)
#define STEP_PARAMS(name, ...) name,
static const char *const param_names[] = {
#include LAB_DEF
    NULL};
#undef STEP
#undef CHECK_SIZE
#undef ROW
#undef STEP_PARAMS

_Static_assert(COUNT_OF(columns) - 1 <= LAB_MAX_COLUMNS, "more COLUMN lines than LAB_MAX_COLUMNS");

const struct step_table JOIN(step_table_, LAB_NAME) = {
    STRING(LAB_NAME), steps, COUNT_OF(steps), rows, COUNT_OF(rows) - 1,
    check_sizes, COUNT_OF(check_sizes), label_columns[0], rate_labels[0],
    columns, COUNT_OF(columns) - 1, variants, COUNT_OF(variants) - 1,
    {profile_sizes[COUNT_OF(profile_sizes) - 1].m, profile_sizes[COUNT_OF(profile_sizes) - 1].n,
     profile_sizes[COUNT_OF(profile_sizes) - 1].k},
    profile_sizes[COUNT_OF(profile_sizes) - 1].given,
    param_names, COUNT_OF(param_names) - 1,
};
