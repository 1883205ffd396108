# The nbody figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH):
#   plots/nbody/burtscher-speedups.png  Burtscher's published speedups per step (burtscher.gp)
PLOT_LAB_TARGETS += plots-nbody
NBODY_PUBLISHED = $(PLOT_PUBLISHED)/nbody-burtscher.csv

.PHONY: plots-nbody
plots-nbody: plots-check
	$(Q)$(PLOT_SH); fig='$(PLOT_FIGURES)/nbody/burtscher-speedups.png'; \
	  if need '$(NBODY_PUBLISHED)' "$$fig"; then \
	    draw "$$fig" harness/labs/nbody/plots/burtscher.gp '$(NBODY_PUBLISHED)'; fi; \
	  exit $$failed
