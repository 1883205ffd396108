/* The runner's choice of what to start (job_schedule.h). */
#include "job_schedule.h"

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
    for (int rank = 0; rank <= 4; ++rank)
        for (size_t i = 0; i < n; ++i)
            if (job_start_rank(&needs[i]) == rank)
                order[k++] = i;
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
