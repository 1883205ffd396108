/* Occupancy model: the published per-SM limits of each architecture, and the
 * arithmetic that turns a kernel's threads, registers and shared memory into
 * resident blocks per SM.
 *
 * Where the numbers come from
 *   - cc 1.0 / 1.3 / 2.0 / 3.0: the CUDA C Programming Guide's compute capability
 *     table and the CUDA Occupancy Calculator spreadsheet's "GPU data" sheet
 *     (register allocation unit, warp allocation granularity, shared memory unit).
 *   - cc 7.0 and later: the Programming Guide's table, cudaDeviceProp as the
 *     runtime reports it (sharedMemPerMultiprocessor, sharedMemPerBlockOptin,
 *     reservedSharedMemPerBlock), the CUDA Toolkit's cuda_occupancy.h, which
 *     is the runtime's own calculation written out as a header (blocks per SM,
 *     allocation units, register-file parts, shared-memory carve-outs), and
 *     CCCL's cuda::arch_traits (libcudacxx/include/cuda/__device/arch_traits.h:
 *     threads, blocks and shared memory per SM for every architecture from sm_60
 *     to sm_121; the CUDA 13.0 toolkit does not ship that header yet).
 *   - Every architecture `nvcc --list-gpu-code` of CUDA 13.0 names is here (sm_75
 *     to sm_121), plus sm_101, the name CUDA 12.8 and 12.9 give Jetson Thor, and
 *     the older GPUs the papers and lectures use.
 *
 * How the calculation follows the runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
 *   - Threads: a block occupies whole warps, so 144 threads take 5 warp slots.
 *   - Registers, cc 1.x: allocated per BLOCK. The block's warps are first rounded
 *     up to warp_alloc_granularity (2), then warps x 32 x registers is rounded up to
 *     reg_alloc_unit (256 on cc 1.0, 512 on cc 1.3).
 *   - Registers, cc 2.0 and later: allocated per WARP: 32 x registers rounded up to
 *     reg_alloc_unit. The register file is split into warp_alloc_granularity equal
 *     parts (one per warp scheduler: 2 on Fermi, 4 since Kepler) and a warp takes
 *     all of its registers from one part, so the number of warps that fit is
 *     counted per part and multiplied back. The same granularity appears in the
 *     launch check: the hardware verifies a block's registers as if its warps
 *     were rounded up to a multiple of the number of parts.
 *   - Shared memory: static + dynamic bytes, plus the bytes the driver reserves
 *     for every block on cc 8.x and later (1 KB), rounded up to smem_alloc_unit.
 *   - blocks per SM = the smallest of the four limits.
 *
 * The shared-memory carve-out. On cc 7.0 and later L1 and shared memory share
 * one array and the split ("carve-out") is chosen per kernel. With default
 * settings (no cudaFuncAttributePreferredSharedMemoryCarveout, no cache config)
 * cuda_occupancy.h takes the device's sharedMemPerMultiprocessor, i.e. the
 * LARGEST carve-out (228 KB on sm_90), and so do we: smem_per_sm below is that
 * maximum. A kernel that sets a smaller preferred carve-out can see fewer blocks
 * than this model reports; the lab never sets one. On cc 2.x/3.x the default
 * cache config (prefer none) likewise gives the 48 KB shared configuration.
 *
 * Opt-in shared memory. Above 48 KB per block a kernel must raise
 * cudaFuncAttributeMaxDynamicSharedMemorySize; max_smem_per_block is the limit
 * with that attribute raised, so the model answers "how many blocks would fit if
 * the kernel opted in to what it uses".
 *
 * Checked against cuda_occupancy.h for every architecture it knows (cc 3.0 and
 * later: the calculation and the facts the header holds) and against CCCL's
 * arch_traits figures by tests/occupancy_xcheck.cpp. */
#include "occupancy.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define KB 1024

const struct gpu_arch gpu_archs[] = {
    {
        .name = "sm_10", .cc_major = 1, .cc_minor = 0, .example_gpu = "GeForce 8800 GTX",
        .warp_size = 32, .max_threads_per_sm = 768, .max_warps_per_sm = 24,
        .max_blocks_per_sm = 8, .max_threads_per_block = 512,
        .regs_per_sm = 8192, .max_regs_per_block = 8192, .max_regs_per_thread = 124,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_BLOCK,
        .warp_alloc_granularity = 2,
        /* on cc 1.x the kernel's parameters also live in shared memory: the
         * compiler's figure (e.g. 2088 = 2048 for two tiles + 40 of parameters)
         * already includes them */
        .smem_per_sm = 16 * KB, .max_smem_per_block = 16 * KB, .smem_alloc_unit = 512,
        .smem_reserved_per_block = 0,
    },
    {
        .name = "sm_13", .cc_major = 1, .cc_minor = 3, .example_gpu = "GeForce GTX 280",
        .warp_size = 32, .max_threads_per_sm = 1024, .max_warps_per_sm = 32,
        .max_blocks_per_sm = 8, .max_threads_per_block = 512,
        .regs_per_sm = 16384, .max_regs_per_block = 16384, .max_regs_per_thread = 124,
        .reg_alloc_unit = 512, .reg_granularity = REG_ALLOC_PER_BLOCK,
        .warp_alloc_granularity = 2,
        .smem_per_sm = 16 * KB, .max_smem_per_block = 16 * KB, .smem_alloc_unit = 512,
        .smem_reserved_per_block = 0,
    },
    {
        .name = "sm_20", .cc_major = 2, .cc_minor = 0, .example_gpu = "Tesla C2050 / GeForce GTX 480",
        .warp_size = 32, .max_threads_per_sm = 1536, .max_warps_per_sm = 48,
        .max_blocks_per_sm = 8, .max_threads_per_block = 1024,
        .regs_per_sm = 32768, .max_regs_per_block = 32768, .max_regs_per_thread = 63,
        .reg_alloc_unit = 64, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 2,
        /* 48 KB shared + 16 KB L1, the default (prefer none) configuration */
        .smem_per_sm = 48 * KB, .max_smem_per_block = 48 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 0,
    },
    {
        .name = "sm_30", .cc_major = 3, .cc_minor = 0, .example_gpu = "GeForce GTX 680",
        .warp_size = 32, .max_threads_per_sm = 2048, .max_warps_per_sm = 64,
        .max_blocks_per_sm = 16, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 63,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 48 * KB, .max_smem_per_block = 48 * KB, .smem_alloc_unit = 256,
        .smem_reserved_per_block = 0,
    },
    {
        .name = "sm_70", .cc_major = 7, .cc_minor = 0, .example_gpu = "Tesla V100",
        .warp_size = 32, .max_threads_per_sm = 2048, .max_warps_per_sm = 64,
        .max_blocks_per_sm = 32, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 96 * KB, .max_smem_per_block = 96 * KB, .smem_alloc_unit = 256,
        .smem_reserved_per_block = 0,
    },
    {
        .name = "sm_75", .cc_major = 7, .cc_minor = 5, .example_gpu = "Tesla T4 / GeForce RTX 2080",
        .warp_size = 32, .max_threads_per_sm = 1024, .max_warps_per_sm = 32,
        .max_blocks_per_sm = 16, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 64 * KB, .max_smem_per_block = 64 * KB, .smem_alloc_unit = 256,
        .smem_reserved_per_block = 0,
    },
    {
        .name = "sm_80", .cc_major = 8, .cc_minor = 0, .example_gpu = "A100",
        .warp_size = 32, .max_threads_per_sm = 2048, .max_warps_per_sm = 64,
        .max_blocks_per_sm = 32, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 164 * KB, .max_smem_per_block = 163 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_86", .cc_major = 8, .cc_minor = 6, .example_gpu = "GeForce RTX 3090 / A10",
        .warp_size = 32, .max_threads_per_sm = 1536, .max_warps_per_sm = 48,
        .max_blocks_per_sm = 16, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 100 * KB, .max_smem_per_block = 99 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_87", .cc_major = 8, .cc_minor = 7, .example_gpu = "Jetson AGX Orin",
        .warp_size = 32, .max_threads_per_sm = 1536, .max_warps_per_sm = 48,
        .max_blocks_per_sm = 16, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        /* the A100's 164 KB of shared memory with GA10x's 48 warps and 16 blocks */
        .smem_per_sm = 164 * KB, .max_smem_per_block = 163 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_88", .cc_major = 8, .cc_minor = 8, .example_gpu = "none named yet (limits of sm_86)",
        .warp_size = 32, .max_threads_per_sm = 1536, .max_warps_per_sm = 48,
        .max_blocks_per_sm = 16, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        /* no product named yet: the same per-SM limits as sm_86 (CCCL's arch_traits) */
        .smem_per_sm = 100 * KB, .max_smem_per_block = 99 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_89", .cc_major = 8, .cc_minor = 9, .example_gpu = "GeForce RTX 4090 / L4 / L40S",
        .warp_size = 32, .max_threads_per_sm = 1536, .max_warps_per_sm = 48,
        .max_blocks_per_sm = 24, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 100 * KB, .max_smem_per_block = 99 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_90", .cc_major = 9, .cc_minor = 0, .example_gpu = "H100",
        .warp_size = 32, .max_threads_per_sm = 2048, .max_warps_per_sm = 64,
        .max_blocks_per_sm = 32, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 228 * KB, .max_smem_per_block = 227 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_100", .cc_major = 10, .cc_minor = 0, .example_gpu = "B200",
        .warp_size = 32, .max_threads_per_sm = 2048, .max_warps_per_sm = 64,
        .max_blocks_per_sm = 32, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 228 * KB, .max_smem_per_block = 227 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_101", .cc_major = 10, .cc_minor = 1, .example_gpu = "Jetson Thor (CUDA 12.8/12.9 name)",
        .warp_size = 32, .max_threads_per_sm = 1536, .max_warps_per_sm = 48,
        .max_blocks_per_sm = 24, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        /* CUDA 12.8 and 12.9 name Jetson Thor sm_101; CUDA 13.0 renamed it sm_110 */
        .smem_per_sm = 228 * KB, .max_smem_per_block = 227 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_103", .cc_major = 10, .cc_minor = 3, .example_gpu = "B300 / GB300",
        .warp_size = 32, .max_threads_per_sm = 2048, .max_warps_per_sm = 64,
        .max_blocks_per_sm = 32, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 228 * KB, .max_smem_per_block = 227 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_110", .cc_major = 11, .cc_minor = 0, .example_gpu = "Jetson Thor",
        .warp_size = 32, .max_threads_per_sm = 1536, .max_warps_per_sm = 48,
        .max_blocks_per_sm = 24, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        /* sm_100's shared memory with 48 warps and 24 blocks per SM */
        .smem_per_sm = 228 * KB, .max_smem_per_block = 227 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_120", .cc_major = 12, .cc_minor = 0, .example_gpu = "GeForce RTX 5090",
        .warp_size = 32, .max_threads_per_sm = 1536, .max_warps_per_sm = 48,
        .max_blocks_per_sm = 24, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 100 * KB, .max_smem_per_block = 99 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {
        .name = "sm_121", .cc_major = 12, .cc_minor = 1, .example_gpu = "DGX Spark (GB10)",
        .warp_size = 32, .max_threads_per_sm = 1536, .max_warps_per_sm = 48,
        .max_blocks_per_sm = 24, .max_threads_per_block = 1024,
        .regs_per_sm = 65536, .max_regs_per_block = 65536, .max_regs_per_thread = 255,
        .reg_alloc_unit = 256, .reg_granularity = REG_ALLOC_PER_WARP,
        .warp_alloc_granularity = 4,
        .smem_per_sm = 100 * KB, .max_smem_per_block = 99 * KB, .smem_alloc_unit = 128,
        .smem_reserved_per_block = 1 * KB,
    },
    {.name = NULL},
};

/* Nicknames for the GPUs a lecture is most likely to name. */
static const struct {
    const char *nickname;
    int cc_major, cc_minor;
} arch_nicknames[] = {
    {"g80", 1, 0},  {"8800gtx", 1, 0}, {"gt200", 1, 3}, {"gtx280", 1, 3},
    {"v100", 7, 0}, {"t4", 7, 5},      {"a100", 8, 0},    {"orin", 8, 7},
    {"h100", 9, 0}, {"b200", 10, 0},   {"b300", 10, 3},   {"thor", 11, 0},
};

const struct gpu_arch *arch_for_cc(int major, int minor)
{
    for (const struct gpu_arch *a = gpu_archs; a->name != NULL; ++a)
        if (a->cc_major == major && a->cc_minor == minor)
            return a;
    return NULL;
}

/* Reads an unsigned decimal number of at most max_digits digits at *p and moves
 * *p past it; -1 when there is none. */
static int read_number(const char **p, int max_digits)
{
    int value = 0, digits = 0;
    while (isdigit((unsigned char)**p) && digits < max_digits) {
        value = value * 10 + (**p - '0');
        ++*p;
        ++digits;
    }
    return digits == 0 ? -1 : value;
}

/* "90" -> 9.0, "100" -> 10.0, "120" -> 12.0: the last digit is the minor version. */
static const struct gpu_arch *arch_for_digits(const char *digits)
{
    const char *p = digits;
    int number = read_number(&p, 4);
    if (number < 10 || *p != '\0')
        return NULL;
    return arch_for_cc(number / 10, number % 10);
}

const struct gpu_arch *arch_find(const char *name)
{
    if (name == NULL)
        return NULL;

    /* lower case, without spaces and underscores: "GeForce 8800 GTX", "sm_90" and
     * "SM90" all compare in one form */
    char key[32];
    size_t n = 0;
    for (const char *p = name; *p != '\0'; ++p) {
        if (*p == ' ' || *p == '_')
            continue;
        if (n + 1 >= sizeof key)
            return NULL;
        key[n++] = (char)tolower((unsigned char)*p);
    }
    key[n] = '\0';
    if (n == 0)
        return NULL;

    /* "geforce8800gtx" as well as "8800gtx" */
    const char *bare = strncmp(key, "geforce", 7) == 0 ? key + 7 : key;
    for (size_t i = 0; i < sizeof arch_nicknames / sizeof arch_nicknames[0]; ++i)
        if (strcmp(bare, arch_nicknames[i].nickname) == 0)
            return arch_for_cc(arch_nicknames[i].cc_major, arch_nicknames[i].cc_minor);

    /* "9.0", "12.0" */
    if (strchr(key, '.') != NULL) {
        const char *p = key;
        int major = read_number(&p, 2);
        if (major < 0 || *p != '.')
            return NULL;
        ++p;
        int minor = read_number(&p, 1);
        if (minor < 0 || *p != '\0')
            return NULL;
        return arch_for_cc(major, minor);
    }

    /* "sm90", "compute90", "90", and the arch-specific "sm90a" / family "sm100f",
     * which have the same per-SM limits as the plain target */
    const char *digits = key;
    if (strncmp(key, "sm", 2) == 0)
        digits = key + 2;
    else if (strncmp(key, "compute", 7) == 0)
        digits = key + 7;
    char number[8];
    size_t len = strlen(digits);
    if (len > 0 && digits != key && (digits[len - 1] == 'a' || digits[len - 1] == 'f'))
        --len;
    if (len == 0 || len >= sizeof number)
        return NULL;
    memcpy(number, digits, len);
    number[len] = '\0';
    return arch_for_digits(number);
}

static long long round_up(long long value, long long unit)
{
    return unit > 1 ? (value + unit - 1) / unit * unit : value;
}

static const char *opt_in_note(const struct gpu_arch *arch)
{
    /* above 48 KB a block needs cudaFuncAttributeMaxDynamicSharedMemorySize */
    return arch->max_smem_per_block > 48 * KB ? " (with the opt-in attribute)" : "";
}

/* Registers one block is charged for, and the figure the launch check compares with
 * max_regs_per_block (they differ only when warps are rounded up to the register
 * file's parts). */
static void block_registers(const struct gpu_arch *arch, int warps_per_block, int regs_per_thread,
                            long long *allocated, long long *checked, long long *per_warp)
{
    long long warp = arch->warp_size;
    if (arch->reg_granularity == REG_ALLOC_PER_BLOCK) {
        long long warps = round_up(warps_per_block, arch->warp_alloc_granularity);
        *per_warp = 0;
        *allocated = round_up(warps * warp * regs_per_thread, arch->reg_alloc_unit);
        *checked = *allocated;
    } else {
        *per_warp = round_up(warp * regs_per_thread, arch->reg_alloc_unit);
        *allocated = *per_warp * warps_per_block;
        *checked = *per_warp * round_up(warps_per_block, arch->warp_alloc_granularity);
    }
}

static int blocks_limited_by_registers(const struct gpu_arch *arch, int warps_per_block,
                                       long long allocated_per_block, long long per_warp)
{
    if (allocated_per_block == 0)
        return INT_MAX; /* a kernel that uses no registers is not limited by them */
    if (arch->reg_granularity == REG_ALLOC_PER_BLOCK)
        return (int)(arch->regs_per_sm / allocated_per_block);
    /* a warp's registers come from one part of the register file: count warps per
     * part, so leftovers in different parts cannot be combined into one warp */
    long long parts = arch->warp_alloc_granularity > 0 ? arch->warp_alloc_granularity : 1;
    long long warps_that_fit = (arch->regs_per_sm / parts) / per_warp * parts;
    return (int)(warps_that_fit / warps_per_block);
}

int occ_compute(const struct gpu_arch *arch, const struct occ_input *in, struct occ_result *out,
                char *why, size_t why_len)
{
    static char ignored[1];
    if (why == NULL || why_len == 0) {
        why = ignored;
        why_len = sizeof ignored;
    }
    why[0] = '\0';
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (arch == NULL || in == NULL || out == NULL) {
        snprintf(why, why_len, "no architecture or no input given");
        return -1;
    }

    int threads = in->threads_per_block;
    int regs = in->regs_per_thread;
    if (threads <= 0) {
        snprintf(why, why_len, "cannot launch: a block needs at least 1 thread (got %d)", threads);
        return -1;
    }
    if (threads > arch->max_threads_per_block) {
        snprintf(why, why_len, "cannot launch: %d threads per block exceeds the %d a block may have on %s",
                 threads, arch->max_threads_per_block, arch->name);
        return -1;
    }
    if (regs < 0) {
        snprintf(why, why_len, "cannot launch: registers per thread cannot be negative (got %d)", regs);
        return -1;
    }
    /* before the block's total: with one thread of 999 registers, "1 threads x 999
     * registers" would blame the block for what the thread alone cannot have */
    if (regs > arch->max_regs_per_thread) {
        snprintf(why, why_len, "cannot launch: %d registers per thread exceeds the %d a thread may use on %s",
                 regs, arch->max_regs_per_thread, arch->name);
        return -1;
    }

    int warps_per_block = (threads + arch->warp_size - 1) / arch->warp_size;
    long long regs_allocated, regs_checked, regs_per_warp;
    block_registers(arch, warps_per_block, regs, &regs_allocated, &regs_checked, &regs_per_warp);
    if (regs_checked > arch->max_regs_per_block) {
        snprintf(why, why_len,
                 "cannot launch: %d threads x %d registers needs %lld registers per block (after rounding to "
                 "the allocation unit), more than the %d a block may use on %s",
                 threads, regs, regs_checked, arch->max_regs_per_block, arch->name);
        return -1;
    }
    if (in->smem_per_block > arch->max_smem_per_block) {
        snprintf(why, why_len, "cannot launch: %zu bytes of shared memory per block exceeds the %zu a block may use on %s%s",
                 in->smem_per_block, arch->max_smem_per_block, arch->name, opt_in_note(arch));
        return -1;
    }

    out->blocks_by[OCC_LIMIT_THREADS] = arch->max_warps_per_sm / warps_per_block;
    out->blocks_by[OCC_LIMIT_BLOCKS] = arch->max_blocks_per_sm;
    out->blocks_by[OCC_LIMIT_REGISTERS] =
        blocks_limited_by_registers(arch, warps_per_block, regs_allocated, regs_per_warp);
    size_t smem_allocated = (size_t)round_up((long long)(in->smem_per_block + arch->smem_reserved_per_block),
                                             (long long)arch->smem_alloc_unit);
    out->blocks_by[OCC_LIMIT_SHARED] =
        smem_allocated == 0 ? INT_MAX : (int)(arch->smem_per_sm / smem_allocated);

    int fewest = INT_MAX;
    for (int r = 0; r < OCC_LIMITER_COUNT; ++r)
        if (out->blocks_by[r] < fewest)
            fewest = out->blocks_by[r];
    for (int r = OCC_LIMITER_COUNT - 1; r >= 0; --r) /* ends on the first in enum order */
        if (out->blocks_by[r] == fewest)
            out->limiter = (enum occ_limiter)r;

    out->blocks_per_sm = fewest;
    out->warps_per_sm = fewest * warps_per_block;
    out->occupancy_pct = 100.0 * out->warps_per_sm / arch->max_warps_per_sm;
    return 0;
}

/* occ_register_headroom: the largest k >= 0 such that the kernel with
 * regs_per_thread + k registers still launches and keeps exactly as many blocks per
 * SM; k = 0 means the very next register costs a block (G80, 256 threads x 10
 * registers: 11 gives 2 blocks instead of 3). -1 when no count up to the largest
 * that still launches (limited by max_regs_per_thread and max_regs_per_block) costs
 * a block, and also when the input itself cannot launch. */
int occ_register_headroom(const struct gpu_arch *arch, const struct occ_input *in)
{
    struct occ_result now, more;
    if (occ_compute(arch, in, &now, NULL, 0) != 0)
        return -1;
    struct occ_input trial = *in;
    for (int regs = in->regs_per_thread + 1; regs <= arch->max_regs_per_thread; ++regs) {
        trial.regs_per_thread = regs;
        if (occ_compute(arch, &trial, &more, NULL, 0) != 0)
            return -1; /* from here on the block cannot launch at all */
        if (more.blocks_per_sm < now.blocks_per_sm)
            return regs - 1 - in->regs_per_thread;
    }
    return -1;
}

/* occ_shared_headroom: the largest b >= 0 such that the kernel with smem_per_block + b
 * bytes still launches and keeps exactly as many blocks per SM. -1 when no size up
 * to max_smem_per_block costs a block, and when the input itself cannot launch.
 *
 * With B blocks per SM, each block may be allocated at most smem_per_sm / B bytes,
 * rounded down to the allocation unit; the reserved bytes come out of that. */
long occ_shared_headroom(const struct gpu_arch *arch, const struct occ_input *in)
{
    struct occ_result now;
    if (occ_compute(arch, in, &now, NULL, 0) != 0)
        return -1;
    size_t unit = arch->smem_alloc_unit > 0 ? arch->smem_alloc_unit : 1;
    size_t largest_allocation = arch->smem_per_sm / (size_t)now.blocks_per_sm / unit * unit;
    size_t largest_request = largest_allocation - arch->smem_reserved_per_block;
    if (largest_request >= arch->max_smem_per_block)
        return -1;
    return (long)(largest_request - in->smem_per_block);
}

const char *occ_limiter_name(enum occ_limiter limiter)
{
    switch (limiter) {
    case OCC_LIMIT_THREADS:
        return "threads";
    case OCC_LIMIT_BLOCKS:
        return "blocks";
    case OCC_LIMIT_REGISTERS:
        return "regs";
    case OCC_LIMIT_SHARED:
        return "smem";
    default:
        return "?";
    }
}
