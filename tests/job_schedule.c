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

int job_nice_increment(const struct job_need *need)
{
    return need->gpu ? 0 : 5;
}

int job_start_rank(const struct job_need *need)
{
    return need->alone ? 0 : need->gpu_gb > 0 ? 1 : need->gpu ? 2 : need->tools ? 3 : 4;
}

void job_start_order(const struct job_need *needs, size_t n, size_t *order)
{
    size_t k = 0;
    for (int rank = 0; rank <= 4; ++rank) {
        for (size_t i = 0; i < n; ++i) /* the untimed, in the order made */
            if (job_start_rank(&needs[i]) == rank && !(needs[i].recorded_s > 0))
                order[k++] = i;
        size_t timed = k;
        for (size_t i = 0; i < n; ++i) /* then the timed, longest first (stable) */
            if (job_start_rank(&needs[i]) == rank && needs[i].recorded_s > 0) {
                size_t b = k++;
                for (; b > timed && needs[order[b - 1]].recorded_s < needs[i].recorded_s; --b)
                    order[b] = order[b - 1];
                order[b] = i;
            }
    }
}

double job_recorded_seconds(const char *text, const char *label)
{
    size_t len = strlen(label);
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t line_len = end != NULL ? (size_t)(end - line) : strlen(line);
        const char *tab = memchr(line, '\t', line_len);
        if (line[0] != '#' && tab != NULL && (size_t)(line + line_len - tab - 1) == len &&
            memcmp(tab + 1, label, len) == 0) {
            char *after;
            double seconds = strtod(line, &after);
            if (after == tab && seconds > 0)
                return seconds;
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return 0;
}

int job_seconds_write(FILE *f, const char *const *labels, const double *seconds, size_t n)
{
    fprintf(f, "# seconds<TAB>job: each job of a make test (bin/run-tests), longest first; the\n"
               "# runner starts the jobs of each kind longest first by such a file\n");
    static struct job_need by_time[1024]; /* (static: 40 KB off the stack, zeroed) */
    size_t order[1024];
    n = n < 1024 ? n : 1024;
    for (size_t i = 0; i < n; ++i)
        by_time[i] = (struct job_need){0, 0, 0, 0, seconds[i]}; /* one rank: by time alone */
    job_start_order(by_time, n, order);
    for (size_t k = 0; k < n; ++k)
        if (seconds[order[k]] > 0) /* (a job that took no time says nothing) */
            fprintf(f, "%.1f\t%s\n", seconds[order[k]], labels[order[k]]);
    return ferror(f) ? -1 : 0;
}

int job_case_runs(int case_is_long, int suite_needs_gpu, enum long_gpu policy)
{
    if (case_is_long)
        return policy != LONG_GPU_LEFT_OUT;
    return !(policy == LONG_GPU_ONLY && suite_needs_gpu);
}

int job_rest_runs(int suite_needs_gpu, enum long_gpu policy)
{
    return !(policy == LONG_GPU_ONLY && suite_needs_gpu);
}
