/* A graded step's counters beside the reference's: counters.h. */
#define _POSIX_C_SOURCE 200809L
#include "counters.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "csv.h"
#include "files.h"
#include "profile.h"
#include "runs.h"

/* The newest profiling of stem from source in dir/<gpu>/<lab>.csv, where gpu is the one
 * folder under dir (gpu_dir NULL: found and written there) or gpu_dir. */
static long read_profile(const char *dir, char *gpu_dir, size_t gpu_len, const char *lab,
                         const char *stem, const char *source, struct profile_kernel *k, size_t max)
{
    if (gpu_dir[0] == '\0') {
        DIR *d = opendir(dir);
        for (struct dirent *e = d ? readdir(d) : NULL; e != NULL; e = readdir(d))
            if (e->d_name[0] != '.')
                snprintf(gpu_dir, gpu_len, "%s", e->d_name);
        if (d != NULL)
            closedir(d);
    }
    char path[8400], err[256];
    snprintf(path, sizeof path, "%s/%s/%s.csv", dir, gpu_dir, lab);
    struct csv_table t;
    if (gpu_dir[0] == '\0' || csv_read_file(path, &t, err, sizeof err) != 0)
        return 0;
    long n = profile_find_step(&t, stem, source, NULL, NULL, k, max, NULL);
    csv_free(&t);
    return n;
}

void grade_counters(struct session *sess, const struct student *s, const struct graded_step *g,
                    const struct step_paths *paths, struct step_result *r)
{
    if (sess->ncu == NULL || !sess->have_gpu)
        return; /* record.c says so once for the report */
    char tool[4400], out[600], work[600], log[700];
    snprintf(tool, sizeof tool, "%s/bin/profile", sess->root);
    snprintf(out, sizeof out, "%s/profiles", s->slot);
    snprintf(work, sizeof work, "%s/profile-work", s->slot);
    snprintf(log, sizeof log, "%s/%s.profile.log", paths->log_dir, g->stem);
    char *argv[] = {tool, "--lab", (char *)g->lab->lab, "--step", (char *)g->step->id,
                    "--source", "labs", "--binary", (char *)paths->binary, "--source-file",
                    (char *)paths->src, "--out", out, "--work", work, "--ncu",
                    (char *)sess->ncu, NULL};
    struct outcome o = run_limited(sess, argv, log, 0, 600, s->sandbox);
    if (o.code == PROFILE_EXIT_UNAVAILABLE && s->sandbox != NULL) {
        /* the usual driver setting (NVreg_RestrictProfilingToAdminUsers=1) keeps the
         * counters to administrators, and the sandbox runs the student as none */
        snprintf(r->counters, sizeof r->counters,
                 "not measured: ncu in the sandbox runs without administrator rights, and "
                 "this driver keeps the counters to administrators (ERR_NVGPUCTRPERM; "
                 "INSTRUCTORS.md, \"The sandbox\") (%s)",
                 log);
        return;
    }
    if (o.code != 0) {
        snprintf(r->counters, sizeof r->counters, "not measured: bin/profile exited %d (%s)",
                 o.code, log);
        return;
    }
    struct profile_kernel mine[64], ref[64];
    char gpu_dir[256] = "", ref_dir[4400];
    long n = read_profile(out, gpu_dir, sizeof gpu_dir, g->lab->lab, g->stem, "labs", mine, 64);
    snprintf(ref_dir, sizeof ref_dir, "%s/data/profiles", sess->root);
    long rn = n > 0 ? read_profile(ref_dir, gpu_dir, sizeof gpu_dir, g->lab->lab, g->stem,
                                   "solutions", ref, 64)
                    : 0;
    if (n <= 0) {
        snprintf(r->counters, sizeof r->counters, "not measured: no profile written (%s)", log);
        return;
    }
    profile_compare_line(mine, (size_t)n, ref, (size_t)rn, g->lab->lab, r->counters,
                         sizeof r->counters);
}
