/* CUDA_VISIBLE_DEVICES's first entry (visible_gpu.h). The driver reads the list up to
 * its first entry it cannot read; an unreadable first entry leaves no GPU. */
#include "visible_gpu.h"

#include <ctype.h>
#include <string.h>

struct visible_gpu visible_gpu_first(const char *value)
{
    struct visible_gpu v;
    memset(&v, 0, sizeof v);
    if (value == NULL)
        return v; /* VISIBLE_GPU_ALL, index 0 */
    size_t len = strcspn(value, ",");
    v.kind = VISIBLE_GPU_NONE;
    if (len == 0)
        return v;
    size_t digits = 0;
    while (digits < len && isdigit((unsigned char)value[digits]))
        ++digits;
    if (digits == len) {
        if (len > 4) /* no machine has 10^4 GPUs: a typo, which the driver refuses too */
            return v;
        unsigned index = 0;
        for (size_t i = 0; i < len; ++i)
            index = index * 10 + (unsigned)(value[i] - '0');
        v.kind = VISIBLE_GPU_INDEX;
        v.index = index;
        return v;
    }
    if (len >= sizeof v.uuid || len <= 4)
        return v;
    if (strncmp(value, "GPU-", 4) == 0)
        v.kind = VISIBLE_GPU_UUID;
    else if (strncmp(value, "MIG-", 4) == 0)
        v.kind = VISIBLE_GPU_MIG;
    else
        return v;
    memcpy(v.uuid, value, len);
    v.uuid[len] = '\0';
    return v;
}

int visible_gpu_uuid_matches(const char *entry, const char *uuid)
{
    size_t len = strlen(entry);
    return len > 4 && strncmp(entry, uuid, len) == 0;
}
