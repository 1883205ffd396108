# The attention lab's make variables (included by the top Makefile).
#
# The inputs, the FP64 reference the check computes and the CPU row's loop
# (attention_cpu.c) run on every core with OpenMP; like every C file of the lab it is
# linked into every attention binary and the test runner, so they link libgomp,
# which ships with gcc.
$(BUILD_DIR)/host/labs/attention/attention_cpu.o: CFLAGS += -fopenmp
$(BUILD_DIR)/host/labs/attention/problem.o: CFLAGS += -fopenmp
attention_LDLIBS := -lgomp

# The unfused row (library-cublas.cu) links cuBLAS.
attention_cublas_LIBS := -lcublas

# The target row (library-cudnn.cu) links cuDNN, which the CUDA Toolkit does not ship:
# its header and library are looked for under CUDNN_HOME= when given, else beside the
# toolkit's, then where NVIDIA's and the distributions' packages put them (/usr/include,
# /usr/include/<triplet>, /usr/lib/<triplet>), then /usr/local/cudnn. A library with
# only its versioned name (PyPI's wheels: libcudnn.so.9) is linked by that name. Without
# both, the row is a skip binary that says so in one line (attention_cudnn_MISSING, exit
# 77) and the rest of the lab builds as before.
CUDNN_HOME ?=
cudnn_roots := $(or $(CUDNN_HOME),$(CUDA_HOME) /usr /usr/local/cudnn)
cudnn_header := $(firstword $(wildcard $(foreach r,$(cudnn_roots),$(r)/include/cudnn.h $(r)/include/*-linux-gnu/cudnn.h)))
cudnn_library := $(firstword $(wildcard $(foreach r,$(cudnn_roots),$(foreach l,lib64 lib lib/*-linux-gnu,\
  $(r)/$(l)/libcudnn.so))) $(wildcard $(foreach r,$(cudnn_roots),$(foreach l,lib64 lib lib/*-linux-gnu,\
  $(r)/$(l)/libcudnn.so.[0-9]))))
cudnn_include_dir := $(patsubst %/,%,$(dir $(cudnn_header)))
cudnn_library_dir := $(patsubst %/,%,$(dir $(cudnn_library)))
ifneq ($(and $(cudnn_header),$(cudnn_library)),)
# (the compilers' own folders need no -I, -L or rpath)
attention_cudnn_NVCCFLAGS := $(if $(filter /usr/include /usr/include/%-linux-gnu $(CUDA_HOME)/include,$(cudnn_include_dir)),,-I$(cudnn_include_dir))
attention_cudnn_LIBS := $(if $(filter /usr/lib/%-linux-gnu,$(cudnn_library_dir)),,-L$(cudnn_library_dir) \
  -Xlinker -rpath=$(cudnn_library_dir)) -l:$(notdir $(cudnn_library))
else
attention_cudnn_MISSING := needs cuDNN: no cudnn.h and libcudnn.so under $(cudnn_roots) when this was built (CUDNN_HOME=dir names its folder)
endif
