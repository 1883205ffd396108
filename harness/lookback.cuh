/* Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with
 * Decoupled Look-back", NVIDIA NVR-2016-002): how a tile learns the sum of every tile
 * before it in one pass, without waiting for them in order. A lab's step includes it
 * for its one-pass kernels (a prefix sum of tiles, or of each digit's count per tile);
 * it knows nothing of any lab.
 *
 * Each tile has a status word per value it publishes (one for a scan's tile sum, one
 * per digit value for a radix sort's counts), cleared to EMPTY before the launch. A
 * tile publishes AGGREGATE and its own value as soon as it has it, then looks back,
 * then publishes PREFIX and the inclusive prefix. The look-back adds the values of
 * tile - 1, tile - 2, ... nearest first, waiting while one is EMPTY, and stops at the
 * first PREFIX (which already holds everything before it).
 *
 * The flag sits in the top 2 bits of the word and the value below, and a word is
 * written and read with one volatile access, so a reader never sees a flag without
 * its value: no fence is needed between them. Word is unsigned (a 30-bit value) or
 * unsigned long long (the value in the low 32 bits, or 62 bits of a count). */
#ifndef HARNESS_LOOKBACK_CUH
#define HARNESS_LOOKBACK_CUH

/* Waits a step may set (-D, in nanoseconds; 0, the default, waits not at all, as the
 * code did before they existed): LOOKBACK_SPIN_NS between two reads of a window that
 * still holds an EMPTY word, LOOKBACK_FIRST_NS once before a warp's first read. Both
 * leave the L2 and the memory system to the tiles still loading instead of polling
 * words that are not ready yet: CUB's sm_90 scan tuning for float sleeps 688 ns a
 * retry and 1140 ns before its look-back (fixed_delay_constructor_t<688, 1140>, only
 * on grids of 500 blocks or more). __nanosleep needs sm_70; every lab's oldest is
 * sm_75. */
#ifndef LOOKBACK_SPIN_NS
#define LOOKBACK_SPIN_NS 0
#endif
#ifndef LOOKBACK_FIRST_NS
#define LOOKBACK_FIRST_NS 0
#endif

#define LOOKBACK_EMPTY 0u     /* nothing published yet */
#define LOOKBACK_AGGREGATE 1u /* the tile's own value */
#define LOOKBACK_PREFIX 2u    /* the tile's value plus every tile's before it */

template <typename Word>
__device__ __forceinline__ unsigned lookback_flag(Word word)
{
    return (unsigned)(word >> (8 * sizeof(Word) - 2));
}

template <typename Word>
__device__ __forceinline__ Word lookback_bits(Word word)
{
    return word & (((Word)1 << (8 * sizeof(Word) - 2)) - 1);
}

/* The value a word carries, as T: a count (unsigned) or a float's bits. */
template <typename T, typename Word>
__device__ __forceinline__ T lookback_value(Word word)
{
    return (T)lookback_bits(word);
}

template <>
__device__ __forceinline__ float lookback_value<float, unsigned long long>(unsigned long long word)
{
    return __uint_as_float((unsigned)word);
}

template <typename T, typename Word>
__device__ __forceinline__ Word lookback_word(unsigned flag, T value)
{
    return (Word)flag << (8 * sizeof(Word) - 2) | (Word)value;
}

template <>
__device__ __forceinline__ unsigned long long lookback_word<float, unsigned long long>(unsigned flag,
                                                                                     float value)
{
    return (unsigned long long)flag << 62 | __float_as_uint(value);
}

template <typename T, typename Word>
__device__ __forceinline__ void lookback_publish(Word *status, unsigned flag, T value)
{
    *(volatile Word *)status = lookback_word<T, Word>(flag, value);
}

template <typename Word>
__device__ __forceinline__ Word lookback_read(const Word *status)
{
    return *(const volatile Word *)status;
}

/* One thread's look-back over the words status[q * stride] of tiles q < tile (tile >
 * 0): the sum of their values. WINDOW words are read at once (independent loads in
 * flight, not one round trip to the L2 per tile) and added nearest first up to the
 * first PREFIX; a word still EMPTY is read again until it is not. A word read as
 * AGGREGATE that has become PREFIX since is still right: the walk goes on past it. */
template <int WINDOW, typename T, typename Word>
__device__ T lookback_thread(const Word *status, long stride, long tile)
{
    T exclusive = 0;
    for (long q = tile - 1;; q -= WINDOW) {
        Word word[WINDOW];
#pragma unroll
        for (int k = 0; k < WINDOW; ++k)
            word[k] = q - k >= 0 ? lookback_read(&status[(q - k) * stride])
                                 : lookback_word<T, Word>(LOOKBACK_PREFIX, (T)0); /* before tile 0 */
#pragma unroll
        for (int k = 0; k < WINDOW; ++k) {
            while (lookback_flag(word[k]) == LOOKBACK_EMPTY)
                word[k] = lookback_read(&status[(q - k) * stride]);
            exclusive += lookback_value<T>(word[k]);
            if (lookback_flag(word[k]) == LOOKBACK_PREFIX)
                return exclusive;
        }
    }
}

/* A whole warp's look-back over status[q] of tiles q < tile (tile > 0), 32 tiles a
 * round: lane k reads tile (window - k); the warp waits while any of the 32 is EMPTY,
 * finds the nearest PREFIX (the lowest lane flagged so), and adds the values of the
 * lanes up to it with a tree of shuffles; with no PREFIX among them it adds all 32
 * and moves 32 tiles back. Every lane returns the sum. */
template <typename T, typename Word>
__device__ T lookback_warp(const Word *status, long tile, unsigned lane)
{
    T exclusive = 0;
    if (LOOKBACK_FIRST_NS > 0)
        __nanosleep(LOOKBACK_FIRST_NS);
    for (long window = tile - 1;; window -= 32) {
        long mine = window - (long)lane;
        Word word = lookback_word<T, Word>(LOOKBACK_PREFIX, (T)0); /* before tile 0 */
        for (;;) {
            if (mine >= 0)
                word = lookback_read(&status[mine]);
            if (!__any_sync(0xffffffffu, lookback_flag(word) == LOOKBACK_EMPTY))
                break;
            if (LOOKBACK_SPIN_NS > 0)
                __nanosleep(LOOKBACK_SPIN_NS);
        }
        unsigned prefixes = __ballot_sync(0xffffffffu, lookback_flag(word) == LOOKBACK_PREFIX);
        unsigned stop = prefixes ? __ffs(prefixes) - 1 : 31;
        T value = lane <= stop ? lookback_value<T>(word) : (T)0;
#pragma unroll
        for (unsigned offset = 1; offset < 32; offset *= 2)
            value += __shfl_down_sync(0xffffffffu, value, offset);
        exclusive = __shfl_sync(0xffffffffu, value, 0) + exclusive;
        if (prefixes)
            return exclusive;
    }
}

#endif
