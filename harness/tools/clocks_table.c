/* The clocks table of the documents (clocks_table.h). */
#include "clocks_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

#define CLOCKS_MARK "<!-- clocks-table "
#define USAGE "<!-- clocks-table FILE.csv LABEL-PREFIX [WORD...] -->"
#define MAX_WORDS 16

int clocks_table_marked(const char *line)
{
    return strncmp(line, CLOCKS_MARK, strlen(CLOCKS_MARK)) == 0;
}

/* Whether the words of command hold words[0..count) one after the other. */
static int holds_words(const char *command, char *const words[], int count)
{
    if (count == 0)
        return 1;
    char copy[2048], *token[256];
    int tokens = 0;
    snprintf(copy, sizeof copy, "%s", command);
    for (char *w = strtok(copy, " "); w != NULL && tokens < 256; w = strtok(NULL, " "))
        token[tokens++] = w;
    for (int start = 0; start + count <= tokens; ++start) {
        int i = 0;
        while (i < count && strcmp(token[start + i], words[i]) == 0)
            ++i;
        if (i == count)
            return 1;
    }
    return 0;
}

int clocks_table(const char *line, struct text *out, char *why, size_t why_len)
{
    char words_of[4096], *word[MAX_WORDS + 1];
    int words = mark_words(line + strlen(CLOCKS_MARK), words_of, sizeof words_of, word, MAX_WORDS + 1);
    if (words < 2 || words > MAX_WORDS) {
        snprintf(why, why_len, "expected %s", USAGE);
        return 2;
    }
    const char *file = word[0], *prefix = word[1];
    struct csv_table t;
    char err[512];
    if (csv_read_file(file, &t, err, sizeof err) != 0) {
        snprintf(why, why_len, "%s", err);
        return -1;
    }
    static const char *const needed[] = {"date", "commit", "gpu", "label", "command", "busy_pct",
                                         "busy_samples", "sm_mhz_mean", "sm_mhz_median", "sm_mhz_min",
                                         "sm_mhz_max", "sm_mhz_most", "power_w_mean", "power_limit_w",
                                         "reasons"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; ++i)
        if (csv_column(&t, needed[i]) < 0) {
            snprintf(why, why_len, "%s has no column %s: not a file of bin/clocks' rows", file, needed[i]);
            csv_free(&t);
            return -1;
        }
    /* the matching rows; the newest commit is the commit of the newest of them (dates
     * are ISO 8601, so they compare as text) */
    size_t *match = malloc((t.nrows + 1) * sizeof *match), matched = 0, newest = 0;
    if (match == NULL) {
        snprintf(why, why_len, "out of memory");
        csv_free(&t);
        return -1;
    }
    for (size_t r = 0; r < t.nrows; ++r) {
        if (strncmp(csv_get(&t, r, "label"), prefix, strlen(prefix)) != 0 ||
            !holds_words(csv_get(&t, r, "command"), word + 2, words - 2))
            continue;
        if (matched == 0 || strcmp(csv_get(&t, r, "date"), csv_get(&t, match[newest], "date")) > 0)
            newest = matched;
        match[matched++] = r;
    }
    if (matched == 0) {
        snprintf(why, why_len, "%s: no row whose label starts with %s%s", file, prefix,
                 words > 2 ? " and whose command holds the mark's words" : "");
        free(match);
        csv_free(&t);
        return -1;
    }
    const char *commit = csv_get(&t, match[newest], "commit");
    const char *first = NULL, *last = NULL;
    text_put(out, "| label | SM clock, mean MHz | median | lowest to highest | of the GPU's most | "
                  "power, mean W | limit W | held back by | busy samples |\n"
                  "|---|---:|---:|---|---:|---:|---:|---|---:|\n");
    for (size_t i = 0; i < matched; ++i) {
        size_t r = match[i];
        if (strcmp(csv_get(&t, r, "commit"), commit) != 0)
            continue;
        const char *date = csv_get(&t, r, "date");
        if (first == NULL || strcmp(date, first) < 0)
            first = date;
        if (last == NULL || strcmp(date, last) > 0)
            last = date;
        double mean = atof(csv_get(&t, r, "sm_mhz_mean")), most = atof(csv_get(&t, r, "sm_mhz_most"));
        char share[32] = "-";
        if (most > 0)
            snprintf(share, sizeof share, "%.0f%%", 100.0 * mean / most);
        text_printf(out, "| %s | %s | %s | %s to %s | %s | %s | %s | %s | %s |\n", csv_get(&t, r, "label"),
                    csv_get(&t, r, "sm_mhz_mean"), csv_get(&t, r, "sm_mhz_median"),
                    csv_get(&t, r, "sm_mhz_min"), csv_get(&t, r, "sm_mhz_max"), share,
                    csv_get(&t, r, "power_w_mean"), csv_get(&t, r, "power_limit_w"),
                    csv_get(&t, r, "reasons"), csv_get(&t, r, "busy_samples"));
    }
    text_printf(out,
                "\n%s, `make clocks` (bin/clocks: NVML sampled while each ran, in this order), "
                "recorded %.10s%s%.10s (commit %s), from `%s`; a sample is busy at a utilization of "
                "%s%% or more; `make guide-tables` regenerates this table.\n",
                csv_get(&t, match[newest], "gpu"), first, strncmp(first, last, 10) ? " to " : "",
                strncmp(first, last, 10) ? last : "", commit, file, csv_get(&t, match[newest], "busy_pct"));
    free(match);
    csv_free(&t);
    return 0;
}
