# Sourced by the scripts that configure a build tree (build.sh, test-sanitizers.sh,
# test-fuzz.sh): compile through ccache when it is installed. A fresh clone (CI's) rebuilds
# every tree from nothing — 11 minutes for build/test on 2 cores, most of ./test.sh's budget
# with the sanitizer and fuzz trees — while most of its files are unchanged since the last
# build on this machine: with ccache those are a lookup. base_dir takes the clone's own path
# out of the key (and hash_dir the working directory), so another clone of the same source
# hits; what is compiled is still exactly the source, flags and compiler at hand.
hitcost_launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  hitcost_launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
