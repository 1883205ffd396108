# The explorer's figures, included by plots/plots.mk, from the tables make explore
# leaves in data/explorer/<gpu>/space.csv (EXPLORER_TABLES):
#   plots/explorer/pareto-<space>-<gpu>.png  efficiency vs utilization, the Pareto
#                                            front and the fastest measured (pareto.gp)
#   plots/explorer/times-<space>-<gpu>.png   time per configuration (times.gp)
PLOT_LAB_TARGETS += plots-explorer
EXPLORER_PLOTS := harness/labs/explorer/plots
EXPLORER_SPACES := paper modern
# make explore's tables: data/explorer/<gpu>/space.csv, beside PLOT_RESULTS (data/results)
EXPLORER_TABLES ?= $(patsubst %/,%,$(dir $(patsubst %/,%,$(PLOT_RESULTS))))/explorer

.PHONY: plots-explorer
plots-explorer: plots-check
	$(Q)$(PLOT_SH); out='$(PLOT_FIGURES)/explorer'; \
	  for table in '$(EXPLORER_TABLES)'/*/space.csv; do [ -f "$$table" ] || continue; \
	    name=$$(figure_name "$$(basename "$$(dirname "$$table")")"); \
	    for space in $(EXPLORER_SPACES); do \
	      draw "$$out/pareto-$$space-$$name.png" $(EXPLORER_PLOTS)/pareto.gp "$$table" "$$space"; \
	      draw "$$out/times-$$space-$$name.png" $(EXPLORER_PLOTS)/times.gp "$$table" "$$space"; \
	    done; \
	  done; \
	  exit $$failed
