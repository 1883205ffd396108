# The N-body lab's make variables (included by the top Makefile).
#
# The CPU rows (ROW lines of lab.def: cpu-serial.cu, cpu-openmp.cu) run the force
# loop of cpu_forces.c, which the C compiler builds with OpenMP, as it builds the
# reference check of physics.c (nbody_reference_accels). Like every C file
# of the lab it is linked into every nbody binary and into the test runner
# (bin/run-tests, whose unit tests run it), so all of them link OpenMP's runtime,
# libgomp, which ships with gcc: no new dependency.
$(BUILD_DIR)/host/labs/nbody/cpu_forces.o: CFLAGS += -fopenmp
# The reference accelerations of a check's sample, on every core (physics.c).
$(BUILD_DIR)/host/labs/nbody/physics.o: CFLAGS += -fopenmp
nbody_LDLIBS := -lgomp
