/* The runner's choice of what to start (job_schedule.h). */
#include "job_schedule.h"

#include <stdlib.h>
#include <string.h>

int job_may_start(const struct job_need *need, const struct job_load *load,
                  const struct job_limits *limits)
{
    if (load->running >= limits->jobs)
        return 0;
    if (need->gpu && load->gpu_running >= limits->gpu_jobs)
        return 0;
    if (need->gpu && load->alone > 0)
        return 0;
    if (need->alone && load->gpu_running > 0)
        return 0;
    if (need->gpu_gb > 0 && load->holding > 0 && load->gpu_gb + need->gpu_gb > limits->gpu_gb)
        return 0;
    return 1;
}

void job_load_add(struct job_load *load, const struct job_need *need, int sign)
{
    load->running += sign;
    load->gpu_running += need->gpu ? sign : 0;
    load->alone += need->alone ? sign : 0;
    if (need->gpu_gb > 0) {
        load->holding += sign;
        load->gpu_gb += sign * need->gpu_gb;
        if (load->holding == 0)
            load->gpu_gb = 0; /* no rounding left over */
    }
}

int job_start_rank(const struct job_need *need)
{
    return need->alone ? 0 : need->gpu ? 1 : need->tools ? 2 : 3;
}

/* Whether job a starts before job b (indices ia < ib keep their order when equal). */
static int starts_before(const struct job_need *a, const struct job_need *b)
{
    int ra = job_start_rank(a), rb = job_start_rank(b);
    if (ra != rb)
        return ra < rb;
    if (a->expected_s != b->expected_s)
        return a->expected_s > b->expected_s;
    return a->gpu_gb > 0 && !(b->gpu_gb > 0);
}

void job_start_order(const struct job_need *needs, size_t n, size_t *order)
{
    /* insertion sort: stable, and a run has a hundred jobs or so */
    for (size_t i = 0; i < n; ++i) {
        size_t k = i;
        while (k > 0 && starts_before(&needs[i], &needs[order[k - 1]])) {
            order[k] = order[k - 1];
            --k;
        }
        order[k] = i;
    }
}

double job_expected_seconds(const char *times, const char *label)
{
    size_t len = strlen(label);
    for (const char *line = times; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t line_len = end != NULL ? (size_t)(end - line) : strlen(line);
        char *after = NULL;
        double seconds = line[0] == '#' ? 0 : strtod(line, &after);
        if (after != NULL && after != line && *after == ' ' &&
            (size_t)(line + line_len - (after + 1)) == len && strncmp(after + 1, label, len) == 0)
            return seconds > 0 ? seconds : 0;
        line = end != NULL ? end + 1 : NULL;
    }
    return 0;
}
