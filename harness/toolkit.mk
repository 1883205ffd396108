# Which CUDA Toolkit builds the lab, and everything that differs between the toolkits
# it supports (CUDA 12.4 and later, CUDA 13): read by the Makefile before anything
# uses nvcc. The toolkit is, in this order:
#   NVCC=/path/to/nvcc        that nvcc, and the toolkit around it (the folder above its
#                             bin/; CUDA_HOME= given on make's command line as well wins)
#   CUDA_HOME=/path/to/cuda   that toolkit's bin/nvcc
#   the nvcc on PATH
#   /usr/local/cuda/bin/nvcc  where NVIDIA's installers put it (CUDA_DEFAULT_HOME)
# make deps-cuda12 installs CUDA 12.4.1 under .deps/cuda12/toolkit (harness/install-cuda12.sh):
#   make CUDA_HOME=.deps/cuda12/toolkit BUILD_DIR=build/cuda12 BIN_DIR=bin/cuda12
CUDA_DEFAULT_HOME ?= /usr/local/cuda
nvcc_how_to := install the CUDA Toolkit, or point to it with CUDA_HOME=/path/to/cuda, NVCC=/path/to/nvcc or PATH
given_here = $(filter command% environment%,$(origin $(1)))
ifneq ($(call given_here,NVCC),)
  toolkit_nvcc := $(shell command -v '$(NVCC)' 2>/dev/null)
  $(if $(toolkit_nvcc),,$(error NVCC=$(NVCC): no such program; $(nvcc_how_to)))
  ifneq ($(origin CUDA_HOME),command line)
    CUDA_HOME := $(patsubst %/bin/,%,$(dir $(abspath $(toolkit_nvcc))))
  endif
else ifneq ($(call given_here,CUDA_HOME),)
  toolkit_nvcc := $(wildcard $(CUDA_HOME)/bin/nvcc)
  $(if $(toolkit_nvcc),,$(error CUDA_HOME=$(CUDA_HOME) has no bin/nvcc; $(nvcc_how_to)))
else
  toolkit_nvcc := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard $(CUDA_DEFAULT_HOME)/bin/nvcc))
  $(if $(toolkit_nvcc),,$(error nvcc not found (not on PATH, nor in $(CUDA_DEFAULT_HOME)/bin); $(nvcc_how_to)))
  CUDA_HOME := $(patsubst %/bin/,%,$(dir $(abspath $(toolkit_nvcc))))
endif
# (absolute: the makes that grading and the tests start may run elsewhere)
override NVCC := $(abspath $(toolkit_nvcc))
override CUDA_HOME := $(abspath $(CUDA_HOME))

# What differs between the toolkits:
# - The C runtime (cudart) is linked statically where the toolkit has libcudart_static.a
#   (NVIDIA's installers), else shared (PyPI's CUDA 12 wheels ship libcudart.so.12 alone).
# - Binaries find the toolkit's shared libraries (cuBLAS, cuSPARSE, that cudart) where
#   they were linked, whether or not the system's loader knows the folder.
NVCC_LDFLAGS := $(if $(wildcard $(CUDA_HOME)/lib64/libcudart_static.a),,-cudart shared) \
  -Xlinker -rpath=$(CUDA_HOME)/lib64
