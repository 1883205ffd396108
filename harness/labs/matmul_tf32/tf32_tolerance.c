#include "tf32_tolerance.h"

double tf32_gamma(long k)
{
    double terms = k > 1 ? (double)k : 1.0;
    double u = TF32_INPUT_ROUNDOFF;
    return 2.0 * u + u * u + terms * TF32_ACCUMULATE_ROUNDOFF;
}

double tf32_tolerance(long k, double abs_sum)
{
    return tf32_gamma(k) * abs_sum;
}
