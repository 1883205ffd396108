# The spmv figures, included by plots/plots.mk (which sets PLOT_* and PLOT_SH), each
# also as slides/<name>.svg:
#   plots/spmv/patterns.png             a small matrix of each class, its nonzeros as dots
#                                       (bin/spmv-pattern prints them; no results needed)
# and for every results folder <gpu> with spmv rows:
#   plots/spmv/gflops-<gpu>.png         GFLOP/s per step and library row, a bar per class
#   plots/spmv/bandwidth-<gpu>.png      GB/s of the minimum bytes, the same way, under the
#                                       measured device-copy line
# The steps and rows stand in lab.def's order (the lab's order file from bin/results-check:
# the steps, then the library rows; a name it does not hold, after them). Each figure's table takes, for every step or row and class, the newest passing row of
# solutions/ at any size of that class, by the CSV's matrix column (make spmv-classes
# records the default sizes; rows of a class since changed carry another name there),
# and of a run that timed the class at several sizes the largest (its --n);
# its last line, "# run GPU NAME|DATE", the GPU's name and the newest row's date, for the
# title.
PLOT_LAB_TARGETS += plots-spmv
SPMV_PLOTS := harness/labs/spmv/plots

$(BIN_DIR)/spmv-pattern: $(SPMV_PLOTS)/pattern.c harness/labs/spmv/matrices.c harness/rng.c
	$(if $(value say),$(call say,LINK,$@),@printf '  %-8s %s\n' LINK $@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fopenmp -Iharness/labs/spmv -o $@ $^ -lm

# the table classes.gp reads, for results folder $$dir, from the lab's order in $$order
# and the sound rows in $$rows
SPMV_TABLE = awk -F, -v dir="$$dir" -v what="$$what" ' \
  BEGIN { split("laplace2d stencil27 random powerlaw banded", names, " "); for (m = 1; m <= 5; ++m) class[names[m]] = m } \
  FILENAME == ARGV[1] { order[++steps] = $$0; seen[$$0] = 1; next } \
  FNR == 1 { for (i = 1; i <= NF; ++i) col[$$i] = i; next } \
  { folder = $$col["gpu"]; gsub(/[^A-Za-z0-9._+-]/, "-", folder) } \
  $$col["source"] == "solutions" && $$col["verdict"] == "PASS" && ($$col["matrix"] in class) && \
  $$col["role"] != "cpu" && folder == dir { \
    gpu = $$col["gpu"]; if ($$col["date"] > newest) newest = $$col["date"]; \
    key = $$col["step"] SUBSEP class[$$col["matrix"]]; \
    if (!(key in value) || ($$col["run_id"] == run[key] ? $$col["n"] + 0 > rows[key] : $$col["date"] > when[key])) { \
      value[key] = $$col[what]; run[key] = $$col["run_id"]; rows[key] = $$col["n"] + 0; when[key] = $$col["date"] } \
    if (!($$col["step"] in seen)) { seen[$$col["step"]] = 1; order[++steps] = $$col["step"] } \
    copy += $$col["copy_gbps"]; copies++ } \
  END { for (s = 1; s <= steps; ++s) for (m = 1; m <= 5; ++m) if ((order[s], m) in value) has[m] = 1; \
    line = "step"; for (m = 1; m <= 5; ++m) if (m in has) line = line " " names[m]; print line " copy"; \
    for (s = 1; s <= steps; ++s) { any = 0; for (m = 1; m <= 5; ++m) if ((order[s], m) in value) any = 1; \
      if (!any) continue; line = order[s]; \
      for (m = 1; m <= 5; ++m) if (m in has) line = line " " ((order[s], m) in value ? value[order[s], m] : "NaN"); \
      print line " " (copies ? copy / copies : "NaN") } \
    print "\# run " gpu "|" newest }'

.PHONY: plots-spmv
plots-spmv: plots-check $(BIN_DIR)/spmv-pattern
	$(Q)$(PLOT_SH); out='$(PLOT_FIGURES)/spmv'; \
	  $(BIN_DIR)/spmv-pattern > '$(PLOT_WORK)/spmv-pattern.dat' && \
	    draw "$$out/patterns.png" $(SPMV_PLOTS)/patterns.gp '$(PLOT_WORK)/spmv-pattern.dat'; \
	  classes() { for what in gflops gbps; do table='$(PLOT_WORK)'/spmv-$$what-$$name.dat; \
	      $(SPMV_TABLE) "$$order" "$$rows" > "$$table"; \
	      fig=$$([ $$what = gflops ] && echo gflops || echo bandwidth); \
	      draw "$$out/$$fig-$$name.png" $(SPMV_PLOTS)/classes.gp "$$table" "$$dir" "$$what"; \
	    done; }; \
	  lab_figures spmv classes || true; \
	  exit $$failed
