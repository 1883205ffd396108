# What the shared figure scripts (plots/*.gp) need to know about the attention lab;
# loaded after plots/common.gp. Rows have m = batch x heads, n = the sequence length,
# k = the head dimension (+ 1000 for the causal mask).
lab_name = "attention"
lab_title = "Attention forward (BF16, FP32 accumulation)"
rate = "gflops"                    # 4 bh n^2 d per launch (half under the causal mask)
rate_scale = 1
rate_unit = "GFLOP/s"
rate_label(r) = flops_text(r)
rate_short(r) = flops_short(r)
flops_per_rate = 1
# The headline size: 16 heads of 4096, d = 128, no mask (the chapter's first table).
head_m = 16; head_n = 4096; head_k = 128
head_size_text = "16x4096, d=128"
# The size sweep (plots/sweep.gp, make sweep-seqlen): 65536 / n heads of n queries,
# d = 128, no mask: the same work as the headline size at every sequence length n.
sweep_rows = 'column("m") * column("n") == 65536 && column("k") == 128'
sweep_log2 = 1
sweep_xlabel = "sequence length n (log2 scale; 65536 / n heads, d = 128, no mask)"
sweep_xtics = 'set xtics ("512" 512, "1K" 1024, "2K" 2048, "4K" 4096, "8K" 8192, "16K" 16384)'
size_of_row(x) = sprintf("%dx%dx%d%s", column("m"), column("n"), int(column("k")) % 1000, \
                         column("k") >= 1000 ? " causal" : "")
# No ceiling line across the steps figure yet (issue 40); the roofline's is roof_quantity
# below.
peak_quantity = ""; peak_factor = 1
peak_title = ""
big_unit = "TFLOP/s"
special_quantity = ""; special_flops = 0
# The roofline's rate across (plots/roofline.gp): the BF16 tensor cores at their most,
# as bin/peaks measures them with wgmma m64n256k16 from shared memory (steps 09-10's
# instruction; mma.sync's bf16_mma, steps 06-08's, stops short of it on Hopper), under
# the copy bandwidth's slope.
roof_quantity = "bf16_wgmma"
roof_title = "BF16 tensor-core peak (wgmma m64n256k16)"
