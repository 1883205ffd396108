# The matrix-multiplication lab's make variables (included by the top Makefile).
# The library row, cuBLAS SGEMM, links cuBLAS.
matmul_LIBRARY_LIBS := -lcublas
