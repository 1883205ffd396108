/* Every Check suite, one per area. SUITE(name, needs) where needs is what the
 * suite requires to run: NOTHING, GPU, GNUPLOT or SLURM (a one-node test cluster).
 * A suite whose need is missing is not run; the runner lists each of its tests as
 * SKIPPED, by name. */
SUITE(rng, NOTHING)
SUITE(verify, NOTHING)
SUITE(csv, NOTHING)
SUITE(cli, NOTHING)
SUITE(steps, NOTHING)
SUITE(labs_tree, NOTHING)
SUITE(results, NOTHING)
SUITE(occupancy, NOTHING)
SUITE(resources, NOTHING)
SUITE(results_check, NOTHING)
SUITE(binaries, NOTHING)
SUITE(techniques, NOTHING)
SUITE(grading, NOTHING)
SUITE(procs, NOTHING)
SUITE(slurm, SLURM)
SUITE(plots_render, GNUPLOT)
SUITE(gpu, GPU)
SUITE(grading_gpu, GPU)
SUITE(handout, NOTHING)
