/* Every Check suite, one per area. SUITE(name, needs) where needs is what the
 * suite requires to run: NOTHING, GPU, GNUPLOT, SLURM (a one-node test cluster),
 * CUOBJDUMP (real SASS listings) or LONG (a long check that needs no GPU: run where
 * make's TEST_LONG is set, no GPU visible or CI=true, and by make test-long).
 * A suite whose need is missing is not run; the runner lists each of its tests as
 * SKIPPED, by name. */
SUITE(rng, NOTHING)
SUITE(verify, NOTHING)
SUITE(csv, NOTHING)
SUITE(launches, NOTHING)
SUITE(cli, NOTHING)
SUITE(steps, NOTHING)
SUITE(gpu_needs, NOTHING)
SUITE(demo_lab, NOTHING)
SUITE(labs_tree, NOTHING)
SUITE(results, NOTHING)
SUITE(occupancy, NOTHING)
SUITE(occupancy_tool, NOTHING)
SUITE(toolkit, NOTHING)
SUITE(resources, NOTHING)
SUITE(results_check, NOTHING)
SUITE(profile, NOTHING)
SUITE(clocks, NOTHING)
SUITE(binaries, NOTHING)
SUITE(guide_tables, NOTHING)
SUITE(doc_links, NOTHING)
SUITE(techniques, NOTHING)
SUITE(techniques_sass, CUOBJDUMP)
SUITE(sass_loop, NOTHING)
SUITE(stall_samples, NOTHING)
SUITE(grading, NOTHING)
SUITE(grading_demo_lab, NOTHING)
SUITE(grading_sandbox, NOTHING)
SUITE(procs, NOTHING)
SUITE(job_schedule, NOTHING)
SUITE(slurm, SLURM)
SUITE(plots_render, GNUPLOT)
SUITE(demo_lab_plots, GNUPLOT)
/* The runner starts GPU jobs in this order as its GPU slots free up: grading's cases
 * and gpu_steps' parts, the longest, before gpu's shorter cases, so that the run does
 * not end on a long one started last (gpu_steps' part of reduce's 2^31-float sizes
 * started last ended the H200's make test alone for 25 s, 2026-11-30). */
SUITE(grading_sanitizer_gpu, GPU)
SUITE(gpu_steps, GPU)
SUITE(gpu, GPU)
SUITE(handout, NOTHING)
SUITE(handout_long, LONG)
SUITE(toolkit_cuda12, LONG)
