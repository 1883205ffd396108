/* The oldest GPU a step runs on: gpu_needs.h. */
#define _POSIX_C_SOURCE 200809L
#include "gpu_needs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gpu_need_parse(const char *text, struct gpu_need *need)
{
    if (text == NULL)
        return -1;
    const char *p = strncmp(text, "sm_", 3) == 0 ? text + 3 : text;
    size_t digits = 0;
    while (isdigit((unsigned char)p[digits]))
        ++digits;
    /* two or three digits, the last one the minor version; "a" only after them */
    if (digits < 2 || digits > 3 || p[0] == '0' || (p[digits] != '\0' && strcmp(p + digits, "a") != 0))
        return -1;
    int number = atoi(p);
    need->major = number / 10;
    need->minor = number % 10;
    need->exact = p[digits] == 'a';
    return 0;
}

int gpu_need_met(const char *needs, int major, int minor)
{
    struct gpu_need need;
    if (gpu_need_parse(needs, &need) != 0)
        return -1;
    if (need.exact)
        return major == need.major && minor == need.minor;
    return major > need.major || (major == need.major && minor >= need.minor);
}

int gpu_need_applies(int major, int minor)
{
    return gpu_need_met("sm_75", major, minor) == 1;
}

const char *gpu_generation(int major, int minor)
{
    if (major == 7)
        return minor >= 5 ? "Turing" : "Volta";
    if (major == 8)
        return minor == 9 ? "Ada" : "Ampere";
    if (major == 9)
        return "Hopper";
    if (major >= 10 && major <= 12)
        return "Blackwell";
    return "";
}

const char *gpu_need_reason_text(const char *needs, const char *whose, const char *what, char *buf,
                                 size_t len)
{
    struct gpu_need need;
    const char *generation =
        gpu_need_parse(needs, &need) == 0 ? gpu_generation(need.major, need.minor) : "";
    char named[64] = "";
    if (generation[0] != '\0')
        snprintf(named, sizeof named, " (%s)", generation);
    snprintf(buf, len, "needs %s%s; %s %s", needs, named, whose, what);
    return buf;
}

const char *gpu_need_reason(const char *needs, const char *whose, int major, int minor, char *buf,
                            size_t len)
{
    char what[32];
    snprintf(what, sizeof what, "sm_%d%d", major, minor);
    return gpu_need_reason_text(needs, whose, what, buf, len);
}

const char *gpu_need_runs_on(const char *needs, char *buf, size_t len)
{
    struct gpu_need need;
    if (gpu_need_parse(needs, &need) != 0) {
        snprintf(buf, len, "a GPU that runs %s", needs);
        return buf;
    }
    const char *generation = gpu_generation(need.major, need.minor);
    char named[64] = "";
    if (generation[0] != '\0')
        snprintf(named, sizeof named, " (%s)", generation);
    snprintf(buf, len, "an sm_%d%d GPU%s%s", need.major, need.minor, named,
             need.exact ? "" : " or newer");
    return buf;
}

int gpu_pretend_sm(int *major, int *minor)
{
    const char *value = getenv(GPU_PRETEND_SM_VARIABLE);
    if (value == NULL || value[0] == '\0')
        return 0;
    struct gpu_need need;
    if (gpu_need_parse(value, &need) != 0 || need.exact)
        return -1;
    *major = need.major;
    *minor = need.minor;
    return 1;
}

/* A stem or row name, never a path. */
static int note_path(const char *dir, const char *name, char *path, size_t len)
{
    if (dir == NULL || dir[0] == '\0' || name[0] == '\0' || name[0] == '.' || strchr(name, '/') != NULL)
        return -1;
    snprintf(path, len, "%s/%s", dir, name);
    return 0;
}

int gpu_need_skip_note(const char *name, const char *reason)
{
    char path[4096];
    if (note_path(getenv(GPU_SKIP_NOTES_VARIABLE), name, path, sizeof path) != 0)
        return 0;
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return 0; /* bin/lab then takes the exit for a missing GPU: the step says why */
    fprintf(f, "%s\n", reason);
    return fclose(f) == 0;
}

int gpu_need_take_skip_note(const char *dir, const char *name, char *reason, size_t len)
{
    char path[4096];
    if (note_path(dir, name, path, sizeof path) != 0)
        return 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    if (fgets(reason, (int)len, f) == NULL)
        reason[0] = '\0';
    fclose(f);
    remove(path);
    reason[strcspn(reason, "\n")] = '\0';
    return 1;
}
