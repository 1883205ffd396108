// Cross-check of the occupancy model (harness/occupancy.c) against NVIDIA's own
// calculator, without a GPU. cuda_occupancy.h (CUDA Toolkit) is the runtime's
// occupancy calculation written as a header: given a cudaOccDeviceProp it answers
// what cudaOccupancyMaxActiveBlocksPerMultiprocessor would answer on that device.
//
// For every architecture in gpu_archs[] that the header knows, we build the
// device properties as cudaGetDeviceProperties would report them, sweep block
// sizes, registers per thread and shared memory per block, and compare the blocks
// per SM and each resource's own limit. For a sample of the configurations we also
// compare our register and shared-memory headroom with the same quantity found by
// brute force with NVIDIA's calculator.
//
// The per-architecture facts are checked too: those cuda_occupancy.h holds itself
// (blocks per SM, allocation units, register-file parts, the largest shared-memory
// carve-out), and the per-SM figures the header takes from cudaDeviceProp, against
// CCCL's cuda::arch_traits (copied below as numbers, since the CUDA 13.0 toolkit
// does not ship that header). An architecture of cc 3.0 or later that the header
// does not know, or one of cc 7.0 or later missing from the CCCL figures, is a
// failure, not a skip.
//
// Exit status 0 only when nothing differs. Build (see the Makefile):
//   gcc -std=c11 -Iharness -c harness/occupancy.c -o occupancy.o
//   g++ -std=c++17 -I$CUDA_HOME/include -Iharness tests/occupancy_xcheck.cpp occupancy.o
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

// Both headers name an enumerator OCC_LIMIT_REGISTERS (and OCC_LIMIT_BLOCKS), so
// NVIDIA's goes into a namespace of its own. The C headers it includes are already
// in, so their include guards keep them out of the namespace.
namespace nv {
#include <cuda_occupancy.h>
}

#include "occupancy.h"

using nv::cudaOccDeviceProp;
using nv::cudaOccDeviceState;
using nv::cudaOccFuncAttributes;
using nv::cudaOccResult;

namespace {

const int kMaxPrintedMismatches = 20;
// Shared memory a block may use without opting in, on every architecture since 2.0.
const size_t kDefaultSmemPerBlock = 48 * 1024;

struct Tally {
    long configurations = 0;
    long mismatches = 0;
    long headroom_checks = 0;
    long headroom_mismatches = 0;
    long fact_checks = 0;
    long fact_mismatches = 0;

    // the architectures are swept on several threads, each with its own tally
    void report(const char *fmt_line)
    {
        static std::atomic<int> printed{0};
        static std::mutex output;
        if (printed++ < kMaxPrintedMismatches) {
            std::lock_guard<std::mutex> lock(output);
            std::printf("  MISMATCH %s\n", fmt_line);
        }
    }

    void add(const Tally &other)
    {
        configurations += other.configurations;
        mismatches += other.mismatches;
        headroom_checks += other.headroom_checks;
        headroom_mismatches += other.headroom_mismatches;
        fact_checks += other.fact_checks;
        fact_mismatches += other.fact_mismatches;
    }
};

cudaOccDeviceProp device_props(const gpu_arch &arch)
{
    cudaOccDeviceProp props;
    props.computeMajor = arch.cc_major;
    props.computeMinor = arch.cc_minor;
    props.maxThreadsPerBlock = arch.max_threads_per_block;
    props.maxThreadsPerMultiprocessor = arch.max_threads_per_sm;
    props.regsPerBlock = arch.max_regs_per_block;
    props.regsPerMultiprocessor = arch.regs_per_sm;
    props.warpSize = arch.warp_size;
    // what cudaDeviceProp reports: 48 KB without opt-in, the opt-in maximum apart
    props.sharedMemPerBlock =
        arch.max_smem_per_block < kDefaultSmemPerBlock ? arch.max_smem_per_block : kDefaultSmemPerBlock;
    props.sharedMemPerMultiprocessor = arch.smem_per_sm;
    props.numSms = 1; // not used by the per-SM calculation, but must be positive
    props.sharedMemPerBlockOptin = arch.max_smem_per_block;
    props.reservedSharedMemPerBlock = arch.smem_reserved_per_block;
    return props;
}

// A kernel as cudaFuncGetAttributes describes it. The shared memory is either
// static (at most 48 KB, as the compiler allows) or dynamic; a kernel that uses
// more than 48 KB has raised cudaFuncAttributeMaxDynamicSharedMemorySize to the
// device's opt-in maximum, which is what our model assumes.
cudaOccFuncAttributes kernel_attrs(const gpu_arch &arch, int regs, size_t smem, bool as_static)
{
    cudaOccFuncAttributes attrs;
    attrs.maxThreadsPerBlock = INT_MAX;
    attrs.numRegs = regs;
    attrs.partitionedGCConfig = nv::PARTITIONED_GC_OFF;
    attrs.shmemLimitConfig = nv::FUNC_SHMEM_LIMIT_OPTIN; // as converted from cudaFuncAttributes
    attrs.numBlockBarriers = 1;
    attrs.virtualResourceCount = 0;
    if (as_static) {
        attrs.sharedSizeBytes = smem;
        attrs.maxDynamicSharedSizeBytes = kDefaultSmemPerBlock - smem;
    } else {
        attrs.sharedSizeBytes = 0;
        attrs.maxDynamicSharedSizeBytes =
            smem > kDefaultSmemPerBlock ? arch.max_smem_per_block : kDefaultSmemPerBlock;
    }
    return attrs;
}

// NVIDIA's answer: blocks per SM (0 when the block cannot launch), or -1 on an error.
int nvidia_blocks(const gpu_arch &arch, int threads, int regs, size_t smem, bool as_static,
                  cudaOccResult *result)
{
    cudaOccDeviceProp props = device_props(arch);
    cudaOccFuncAttributes attrs = kernel_attrs(arch, regs, smem, as_static);
    cudaOccDeviceState state; // default: no cache preference, no carve-out preference
    cudaOccResult local;
    cudaOccResult *out = result != nullptr ? result : &local;
    if (nv::cudaOccMaxActiveBlocksPerMultiprocessor(out, &props, &attrs, &state, threads,
                                                    as_static ? 0 : smem) != nv::CUDA_OCC_SUCCESS)
        return -1;
    return out->activeBlocksPerMultiprocessor;
}

int our_blocks(const gpu_arch &arch, int threads, int regs, size_t smem, occ_result *result)
{
    occ_input in = {threads, regs, smem};
    occ_result local;
    occ_result *out = result != nullptr ? result : &local;
    return occ_compute(&arch, &in, out, nullptr, 0) == 0 ? out->blocks_per_sm : 0;
}

bool nvidia_knows(const gpu_arch &arch)
{
    return nvidia_blocks(arch, 32, 16, 0, false, nullptr) >= 0;
}

std::vector<int> block_sizes(const gpu_arch &arch)
{
    std::vector<int> sizes;
    for (int t = 32; t <= arch.max_threads_per_block; t += 32)
        sizes.push_back(t);
    const int odd[] = {1, 2, 7, 16, 31, 33, 48, 63, 65, 95, 100, 129, 144, 160, 200, 255, 257,
                       300, 320 + 1, 500, 511, 513, 700, 769, 900, 993, 1000, 1023};
    for (int t : odd)
        if (t <= arch.max_threads_per_block)
            sizes.push_back(t);
    sizes.push_back(arch.max_threads_per_block + 1); // cannot launch: both must say 0
    return sizes;
}

std::vector<size_t> smem_sizes(const gpu_arch &arch)
{
    std::vector<size_t> sizes = {0, 1, 100, 2088, 4096};
    const size_t unit = arch.smem_alloc_unit;
    // every 4 KB, and the bytes either side of each allocation-unit boundary near it
    for (size_t kb = 4; kb * 1024 <= arch.max_smem_per_block; kb += 4) {
        sizes.push_back(kb * 1024 - unit - arch.smem_reserved_per_block);
        sizes.push_back(kb * 1024 - arch.smem_reserved_per_block);
        sizes.push_back(kb * 1024 - arch.smem_reserved_per_block + 1);
    }
    // the per-block maximum, with and without the opt-in, and one byte past each
    const size_t edges[] = {kDefaultSmemPerBlock, arch.max_smem_per_block, arch.smem_per_sm / 2,
                            arch.smem_per_sm / 3, arch.smem_per_sm / 5};
    for (size_t e : edges) {
        sizes.push_back(e - 1);
        sizes.push_back(e);
        sizes.push_back(e + 1);
    }
    std::vector<size_t> kept;
    for (size_t s : sizes)
        if (s <= arch.max_smem_per_block + 1)
            kept.push_back(s);
    return kept;
}

void compare_one(const gpu_arch &arch, int threads, int regs, size_t smem, bool as_static, Tally &tally)
{
    cudaOccResult theirs;
    occ_result ours;
    int their_blocks = nvidia_blocks(arch, threads, regs, smem, as_static, &theirs);
    int our_count = our_blocks(arch, threads, regs, smem, &ours);
    ++tally.configurations;

    bool same = their_blocks == our_count;
    // when the block can launch, each resource's own limit must agree as well
    if (same && our_count > 0) {
        same = ours.blocks_by[OCC_LIMIT_THREADS] == theirs.blockLimitWarps &&
               ours.blocks_by[OCC_LIMIT_BLOCKS] == theirs.blockLimitBlocks &&
               ours.blocks_by[OCC_LIMIT_REGISTERS] == theirs.blockLimitRegs &&
               ours.blocks_by[OCC_LIMIT_SHARED] == theirs.blockLimitSharedMem;
    }
    if (!same) {
        char line[512];
        std::snprintf(line, sizeof line,
                      "%s: %d threads, %d regs, %zu B %s smem: ours %d [threads %d blocks %d regs %d "
                      "smem %d], NVIDIA %d [warps %d blocks %d regs %d smem %d]",
                      arch.name, threads, regs, smem, as_static ? "static" : "dynamic", our_count,
                      ours.blocks_by[0], ours.blocks_by[1], ours.blocks_by[2], ours.blocks_by[3],
                      their_blocks, theirs.blockLimitWarps, theirs.blockLimitBlocks,
                      theirs.blockLimitRegs, theirs.blockLimitSharedMem);
        ++tally.mismatches;
        tally.report(line);
    }
}

// Headroom by brute force with NVIDIA's calculator, following the definitions in
// occupancy.c: the most that can be added while the block still launches and keeps
// its block count; -1 if nothing up to the launch limits costs a block.
int nvidia_register_headroom(const gpu_arch &arch, int threads, int regs, size_t smem)
{
    int now = nvidia_blocks(arch, threads, regs, smem, false, nullptr);
    if (now <= 0)
        return -1;
    for (int r = regs + 1; r <= arch.max_regs_per_thread; ++r) {
        int then = nvidia_blocks(arch, threads, r, smem, false, nullptr);
        if (then <= 0)
            return -1;
        if (then < now)
            return r - 1 - regs;
    }
    return -1;
}

long nvidia_shared_headroom(const gpu_arch &arch, int threads, int regs, size_t smem)
{
    int now = nvidia_blocks(arch, threads, regs, smem, false, nullptr);
    if (now <= 0)
        return -1;
    // blocks only fall as shared memory grows: find the largest size that keeps them
    size_t keeps = smem, loses = arch.max_smem_per_block + 1;
    if (nvidia_blocks(arch, threads, regs, arch.max_smem_per_block, false, nullptr) == now)
        return -1;
    while (loses - keeps > 1) {
        size_t mid = keeps + (loses - keeps) / 2;
        if (nvidia_blocks(arch, threads, regs, mid, false, nullptr) == now)
            keeps = mid;
        else
            loses = mid;
    }
    return (long)(keeps - smem);
}

void compare_headroom(const gpu_arch &arch, int threads, int regs, size_t smem, Tally &tally)
{
    occ_input in = {threads, regs, smem};
    int our_regs = occ_register_headroom(&arch, &in);
    long our_smem = occ_shared_headroom(&arch, &in);
    int their_regs = nvidia_register_headroom(arch, threads, regs, smem);
    long their_smem = nvidia_shared_headroom(arch, threads, regs, smem);
    ++tally.headroom_checks;
    if (our_regs != their_regs || our_smem != their_smem) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "%s: %d threads, %d regs, %zu B smem: headroom ours %d regs / %ld B, "
                      "NVIDIA %d regs / %ld B",
                      arch.name, threads, regs, smem, our_regs, our_smem, their_regs, their_smem);
        ++tally.headroom_mismatches;
        tally.report(line);
    }
}

// Per-SM figures of CCCL's cuda::arch_traits<arch_id::sm_NN>() (NVIDIA/cccl,
// libcudacxx/include/cuda/__device/arch_traits.h): numbers only. sm_88 is sm_86's,
// sm_103 is sm_100's, sm_110 is sm_100's with 1536 threads and 24 blocks, sm_121 is
// sm_120's. sm_101 (CUDA 12.8/12.9's name for Jetson Thor, gone from CCCL) takes
// sm_110's.
struct CcclTraits {
    int cc;
    int max_threads_per_sm, max_blocks_per_sm;
    size_t smem_per_sm, smem_optin, smem_reserved;
};
const CcclTraits kCcclTraits[] = {
    {70, 2048, 32, 96 * 1024, 96 * 1024, 0},
    {75, 1024, 16, 64 * 1024, 64 * 1024, 0},
    {80, 2048, 32, 164 * 1024, 163 * 1024, 1024},
    {86, 1536, 16, 100 * 1024, 99 * 1024, 1024},
    {87, 1536, 16, 164 * 1024, 163 * 1024, 1024},
    {88, 1536, 16, 100 * 1024, 99 * 1024, 1024},
    {89, 1536, 24, 100 * 1024, 99 * 1024, 1024},
    {90, 2048, 32, 228 * 1024, 227 * 1024, 1024},
    {100, 2048, 32, 228 * 1024, 227 * 1024, 1024},
    {101, 1536, 24, 228 * 1024, 227 * 1024, 1024},
    {103, 2048, 32, 228 * 1024, 227 * 1024, 1024},
    {110, 1536, 24, 228 * 1024, 227 * 1024, 1024},
    {120, 1536, 24, 100 * 1024, 99 * 1024, 1024},
    {121, 1536, 24, 100 * 1024, 99 * 1024, 1024},
};
// Common to every architecture in arch_traits (sm_60 and later, except sm_62).
const int kCcclThreadsPerBlock = 1024, kCcclRegsPerSm = 64 * 1024, kCcclRegsPerBlock = 64 * 1024,
          kCcclRegsPerThread = 255;

void fact(const gpu_arch &arch, const char *what, long long ours, long long theirs, const char *source,
          Tally &tally)
{
    ++tally.fact_checks;
    if (ours == theirs)
        return;
    char line[256];
    std::snprintf(line, sizeof line, "%s: %s is %lld in our table, %lld in %s", arch.name, what, ours,
                  theirs, source);
    ++tally.fact_mismatches;
    tally.report(line);
}

// The facts cuda_occupancy.h states for this compute capability.
void compare_header_facts(const gpu_arch &arch, Tally &tally)
{
    const char *header = "cuda_occupancy.h";
    cudaOccDeviceProp props = device_props(arch);
    int value = 0;
    if (nv::cudaOccMaxBlocksPerMultiprocessor(&value, &props) == nv::CUDA_OCC_SUCCESS)
        fact(arch, "blocks per SM", arch.max_blocks_per_sm, value, header, tally);
    if (nv::cudaOccSMemAllocationGranularity(&value, &props) == nv::CUDA_OCC_SUCCESS)
        fact(arch, "the shared-memory allocation unit", (long long)arch.smem_alloc_unit, value, header,
             tally);
    if (nv::cudaOccRegAllocationGranularity(&value, &props) == nv::CUDA_OCC_SUCCESS)
        fact(arch, "the register allocation unit", arch.reg_alloc_unit, value, header, tally);
    if (nv::cudaOccSubPartitionsPerMultiprocessor(&value, &props) == nv::CUDA_OCC_SUCCESS)
        fact(arch, "the register file's parts", arch.warp_alloc_granularity, value, header, tally);
    if (arch.cc_major >= 7) {
        // the largest carve-out: the header keeps it as it is, and refuses one byte more
        size_t largest = arch.smem_per_sm, beyond = arch.smem_per_sm + 1;
        bool kept = nv::cudaOccAlignUpShmemSizeVoltaPlus(&largest, &props) == nv::CUDA_OCC_SUCCESS &&
                    largest == arch.smem_per_sm;
        bool refused = nv::cudaOccAlignUpShmemSizeVoltaPlus(&beyond, &props) != nv::CUDA_OCC_SUCCESS;
        fact(arch, "shared memory per SM is the largest carve-out (1 = yes)", 1, kept && refused ? 1 : 0,
             header, tally);
    }
}

// The per-SM figures cudaDeviceProp would give, from CCCL's arch_traits.
bool compare_cccl_facts(const gpu_arch &arch, Tally &tally)
{
    const char *cccl = "CCCL arch_traits";
    int cc = arch.cc_major * 10 + arch.cc_minor;
    for (const CcclTraits &t : kCcclTraits) {
        if (t.cc != cc)
            continue;
        fact(arch, "threads per SM", arch.max_threads_per_sm, t.max_threads_per_sm, cccl, tally);
        fact(arch, "warps per SM", arch.max_warps_per_sm, t.max_threads_per_sm / 32, cccl, tally);
        fact(arch, "blocks per SM", arch.max_blocks_per_sm, t.max_blocks_per_sm, cccl, tally);
        fact(arch, "shared memory per SM", (long long)arch.smem_per_sm, (long long)t.smem_per_sm, cccl,
             tally);
        fact(arch, "shared memory per block (opt-in)", (long long)arch.max_smem_per_block,
             (long long)t.smem_optin, cccl, tally);
        fact(arch, "shared memory reserved per block", (long long)arch.smem_reserved_per_block,
             (long long)t.smem_reserved, cccl, tally);
        fact(arch, "threads per block", arch.max_threads_per_block, kCcclThreadsPerBlock, cccl, tally);
        fact(arch, "registers per SM", arch.regs_per_sm, kCcclRegsPerSm, cccl, tally);
        fact(arch, "registers per block", arch.max_regs_per_block, kCcclRegsPerBlock, cccl, tally);
        fact(arch, "registers per thread", arch.max_regs_per_thread, kCcclRegsPerThread, cccl, tally);
        return true;
    }
    return false;
}

// Two architectures of one major version are twins when every field of the model's
// table but the name, the minor version and the example GPU is the same (sm_88 and
// sm_86, sm_103 and sm_100, sm_121 and sm_120); cuda_occupancy.h then states the
// same facts for both (compare_header_facts holds each to the table). Different
// major versions take different paths through the header, so they are never twins.
bool twins(const gpu_arch &a, const gpu_arch &b)
{
    return a.warp_size == b.warp_size && a.max_threads_per_sm == b.max_threads_per_sm &&
           a.max_warps_per_sm == b.max_warps_per_sm && a.max_blocks_per_sm == b.max_blocks_per_sm &&
           a.max_threads_per_block == b.max_threads_per_block && a.regs_per_sm == b.regs_per_sm &&
           a.max_regs_per_block == b.max_regs_per_block &&
           a.max_regs_per_thread == b.max_regs_per_thread && a.reg_alloc_unit == b.reg_alloc_unit &&
           a.reg_granularity == b.reg_granularity &&
           a.warp_alloc_granularity == b.warp_alloc_granularity && a.smem_per_sm == b.smem_per_sm &&
           a.max_smem_per_block == b.max_smem_per_block && a.smem_alloc_unit == b.smem_alloc_unit &&
           a.smem_reserved_per_block == b.smem_reserved_per_block;
}

struct Sweep {
    const gpu_arch *arch;
    int reg_step; // 1: every register count; a twin of an architecture swept in full: every 4th
};

void sweep(const Sweep &job, Tally &tally)
{
    const gpu_arch &arch = *job.arch;
    const std::vector<int> threads_list = block_sizes(arch);
    const std::vector<size_t> smem_list = smem_sizes(arch);
    long sample = 0;
    // registers beyond max_regs_per_thread never come out of the compiler (on
    // sm_30 the header would accept 64..255, the hardware cannot encode them)
    for (int threads : threads_list) {
        for (int regs = 0; regs <= arch.max_regs_per_thread; ++regs) {
            if (regs % job.reg_step != 0 && regs != arch.max_regs_per_thread)
                continue;
            for (size_t smem : smem_list) {
                compare_one(arch, threads, regs, smem, false, tally);
                if (smem <= kDefaultSmemPerBlock)
                    compare_one(arch, threads, regs, smem, true, tally);
                // the brute-force headroom is slow: every 97th configuration
                if (++sample % 97 == 0)
                    compare_headroom(arch, threads, regs, smem, tally);
            }
        }
    }
}

} // namespace

int main()
{
    Tally tally;
    std::vector<Sweep> jobs;
    int twin_count = 0;
    for (const gpu_arch *arch = gpu_archs; arch->name != nullptr; ++arch) {
        if (arch->cc_major >= 7 && !compare_cccl_facts(*arch, tally)) {
            char line[160];
            std::snprintf(line, sizeof line, "%s: no CCCL arch_traits figures in this cross-check",
                          arch->name);
            ++tally.fact_mismatches;
            tally.report(line);
        }
        if (!nvidia_knows(*arch)) {
            if (arch->cc_major >= 3) { // the header knows every architecture since Kepler
                char line[160];
                std::snprintf(line, sizeof line, "%s: cuda_occupancy.h does not know cc %d.%d",
                              arch->name, arch->cc_major, arch->cc_minor);
                ++tally.fact_mismatches;
                tally.report(line);
                continue;
            }
            std::printf("occupancy xcheck: skipping %s (cc %d.%d, %s): cuda_occupancy.h does not "
                        "describe it\n",
                        arch->name, arch->cc_major, arch->cc_minor, arch->example_gpu);
            continue;
        }
        compare_header_facts(*arch, tally);
        bool twin = false;
        for (const Sweep &job : jobs)
            twin = twin || (job.reg_step == 1 && job.arch->cc_major == arch->cc_major &&
                             twins(*job.arch, *arch));
        twin_count += twin ? 1 : 0;
        jobs.push_back({arch, twin ? 4 : 1});
    }

    // the sweeps, largest first, on as many threads as there are cores
    std::sort(jobs.begin(), jobs.end(), [](const Sweep &a, const Sweep &b) {
        return a.arch->smem_per_sm / a.reg_step > b.arch->smem_per_sm / b.reg_step;
    });
    unsigned workers = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
    std::vector<Tally> tallies(workers);
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
            for (size_t j = next++; j < jobs.size(); j = next++)
                sweep(jobs[j], tallies[w]);
        });
    for (std::thread &t : threads)
        t.join();
    for (const Tally &t : tallies)
        tally.add(t);

    std::printf("occupancy xcheck: headroom compared on %ld configurations, %ld mismatches\n",
                tally.headroom_checks, tally.headroom_mismatches);
    std::printf("occupancy xcheck: %ld per-architecture facts compared, %ld mismatches\n",
                tally.fact_checks, tally.fact_mismatches);
    long all_mismatches = tally.mismatches + tally.headroom_mismatches + tally.fact_mismatches;
    std::printf("occupancy xcheck: %ld configurations on %zu architectures (%d of them twins of "
                "another, every 4th register count), %ld mismatches\n",
                tally.configurations, jobs.size(), twin_count, all_mismatches);
    return all_mismatches == 0 ? 0 : 1;
}
