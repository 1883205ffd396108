#!/bin/sh
# Installs a CUDA 12.4 toolkit under .deps/cuda12/toolkit (make deps-cuda12), so that
# the lab can be built and tested with CUDA 12 beside the system's CUDA 13:
#   make CUDA_HOME=.deps/cuda12/toolkit ...   (harness/toolkit.mk)
# PyPI's CUDA 12 wheels carry the headers and libraries, but not the compiler: their
# nvidia-cuda-nvcc-cu12 holds ptxas, the crt headers and libNVVM, no nvcc, cicc,
# cudafe++, fatbinary or nvlink. Those come from Debian 13's nvidia-cuda-toolkit
# (NVIDIA's own binaries of CUDA 12.4.1, repackaged; non-free), fetched with apt-get
# download into a private apt state (the system's sources are not touched) and
# unpacked, not installed; so does CCCL 2.3.2, the release CUDA 12.4 ships (Debian's
# libcub-dev, libthrust-dev, libcu++-dev: PyPI's nvidia-cuda-cccl-cu12 12.4.127 lacks
# every header without an extension, <cuda/std/atomic> and the like). Everything else
# is the PyPI wheel of the same release, so the tree is one CUDA 12.4.1 in the layout
# of NVIDIA's installer (bin/, nvvm/, include/, lib64/). About 1.2 GB unpacked.
#   LAB_OFFLINE=1   do not download; say so and exit 1
#   --pack FILE     then also write FILE (xz, about 31 MB): the toolkit less cuBLAS and
#                   cuSPARSE (850 MB), for a machine without network (a lent GPU) to build
#                   and run the steps, the CPU rows and the CUB rows with CUDA 12; there,
#                   `mkdir -p .deps/cuda12 && tar -C .deps/cuda12 -xJf FILE`
set -eu
pack=""
case "${1:-}" in
--pack) [ $# -eq 2 ] && pack=$(cd "$(dirname "$2")" && pwd)/${2##*/} \
    || { echo "usage: $0 [--pack FILE.tar.xz]" >&2; exit 2; } ;;
"") ;;
*) echo "usage: $0 [--pack FILE.tar.xz]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
root=.deps/cuda12
home=$root/toolkit
pack_toolkit() {
    [ -n "$pack" ] || return 0
    # (the links made below are kept as links; every library's real file is in lib64)
    tar -C "$root" -cf - installed toolkit/bin/nvcc toolkit/bin/nvcc.profile toolkit/bin/crt \
        toolkit/bin/cudafe++ toolkit/bin/ptxas toolkit/bin/fatbinary toolkit/bin/nvlink \
        toolkit/bin/bin2c toolkit/bin/cuobjdump toolkit/bin/compute-sanitizer \
        toolkit/compute-sanitizer toolkit/nvvm toolkit/include toolkit/lib64/libcudart.so.12 \
        toolkit/lib64/libcudart.so toolkit/lib64/libcupti.so.12 toolkit/lib64/libcupti.so \
        toolkit/lib64/libcudadevrt.a |
        xz -9 > "$pack"
    echo "Packed CUDA 12 less cuBLAS and cuSPARSE into $pack ($(du -k "$pack" | cut -f1) kB)"
}
# (written last: a download cut short is started again)
if [ -f "$root/installed" ]; then pack_toolkit; exit 0; fi
if [ "${LAB_OFFLINE:-0}" = 1 ]; then
    echo "error: LAB_OFFLINE=1 and $home has no CUDA 12 toolkit (make deps-cuda12 downloads it)" >&2
    exit 1
fi
pip=""
for candidate in "python3 -m pip" "pip3" "pip"; do
    if $candidate --version >/dev/null 2>&1; then pip=$candidate; break; fi
done
[ -n "$pip" ] || { echo "error: make deps-cuda12 needs pip (python3-pip) for PyPI's CUDA 12 wheels" >&2; exit 1; }

# The release: the compiler's Debian package and the PyPI wheels of CUDA 12.4.1.
DEBIAN_SUITE=trixie
DEBS="nvidia-cuda-toolkit libcub-dev libthrust-dev libcu++-dev"
WHEELS="nvidia-cuda-nvcc-cu12==12.4.131 nvidia-cuda-runtime-cu12==12.4.127 nvidia-cuda-cupti-cu12==12.4.127
  nvidia-cublas-cu12==12.4.5.8 nvidia-cusparse-cu12==12.3.1.170 nvidia-nvjitlink-cu12==12.4.127"

rm -rf "$root"
mkdir -p "$root/apt/lists/partial" "$root/apt/cache/archives/partial" "$root/deb"
apt_root=$(cd "$root/apt" && pwd)
printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian %s main non-free\n' \
    "$DEBIAN_SUITE" > "$apt_root/sources.list"
: > "$apt_root/status"
apt_private() {
    apt-get -q -o Dir::Etc::sourcelist="$apt_root/sources.list" -o Dir::Etc::sourceparts=/nonexistent \
        -o Dir::State::Lists="$apt_root/lists" -o Dir::Cache="$apt_root/cache" \
        -o Dir::State::status="$apt_root/status" -o APT::Sandbox::User=root "$@"
}
echo "Downloading CUDA 12.4.1's compiler and CCCL (Debian $DEBIAN_SUITE's packages) into $root..."
apt_private update >"$root/apt.log" 2>&1 || { cat "$root/apt.log" >&2; exit 1; }
# word splitting is wanted: $DEBS is a list of package names
(cd "$root/deb" && apt_private download $DEBS) >>"$root/apt.log" 2>&1 || { cat "$root/apt.log" >&2; exit 1; }
for package in "$root"/deb/*.deb; do dpkg-deb -x "$package" "$root/deb/x"; done

echo "Installing CUDA 12.4.1's headers and libraries from PyPI into $root/pip..."
# word splitting is wanted: $WHEELS is a list of requirements
$pip install --quiet --disable-pip-version-check --no-deps --target "$root/pip" $WHEELS \
    >"$root/pip.log" 2>&1 || { cat "$root/pip.log" >&2; exit 1; }

# The toolkit, in the installer's layout (nvcc finds everything through bin/nvcc.profile).
deb=$root/deb/x/usr
mkdir -p "$home/bin/crt" "$home/nvvm/bin" "$home/nvvm/libdevice" "$home/include" "$home/lib64"
for tool in nvcc cicc; do
    cp "$deb/lib/nvidia-cuda-toolkit/bin/$tool" "$home/$( [ $tool = cicc ] && echo nvvm/bin || echo bin)/"
done
for tool in cudafe++ ptxas fatbinary nvlink bin2c cuobjdump nvdisasm cu++filt nvprune; do
    cp "$deb/bin/$tool" "$home/bin/"
done
cp "$deb"/lib/nvidia-cuda-toolkit/bin/crt/*.stub "$home/bin/crt/"
cp "$deb"/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc "$home/nvvm/libdevice/"
cp -R "$deb/lib/nvidia-cuda-toolkit/compute-sanitizer" "$home/"
cp -R "$deb/include/cub" "$deb/include/thrust" "$deb/include/cuda" "$deb/include/nv" "$home/include/"
ln -s ../compute-sanitizer/compute-sanitizer "$home/bin/compute-sanitizer"
cat > "$home/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
# headers and libraries, moved out of the wheels (the toolkit can be moved or packed
# whole); a library also under its unversioned name, which the linker's -lcublas takes
for dir in "$root"/pip/nvidia/*/include; do
    for entry in "$dir"/*; do
        case ${entry##*/} in __init__.py | __pycache__) continue ;; esac
        mv "$entry" "$home/include/"
    done
done
for lib in "$root"/pip/nvidia/*/lib/lib*; do
    name=${lib##*/}
    mv "$lib" "$home/lib64/"
    case $name in *.so.*) ln -sfn "$name" "$home/lib64/${name%%.so.*}.so" ;; esac
done
# CUDA 12's device runtime library (libcudadevrt.a, for relocatable device code) is in
# none of the packages above, and nvcc names it in every link: an empty archive stands
# in, as no step is built with -rdc (a step that is fails to link, never links another
# toolkit's). Without it nvcc took /usr/local/lib's CUDA 13 copy where there was one,
# and failed to link every binary on the H200, which has none there.
ar rc "$home/lib64/libcudadevrt.a"
rm -rf "$root/deb" "$root/apt" "$root/pip"
version=$("$home/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
[ "$version" = 12.4 ] || { echo "error: $home/bin/nvcc is release '$version', not 12.4" >&2; exit 1; }
echo "$version" > "$root/installed"
echo "Installed CUDA $version in $home: make CUDA_HOME=$home"
pack_toolkit
