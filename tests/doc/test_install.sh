#!/bin/sh
# tests/doc/test_install.sh: `meson install` into a DESTDIR gives what README.md ("Installing")
# says: the tools, libtaskir.a, taskir.pc and the headers under include/taskir/ and
# include/frontend/FOLDER/, taskir-run's XML module in the folder taskir-run names; the C API
# example of docs/cinn.md (section 5, the block marked
# `doctest: file cinn_example.c`) builds against the installed headers and library alone
# (pkg-config with PKG_CONFIG_SYSROOT_DIR, no source or build dir), runs, and the installed
# taskir-dump verifies the TaskGraph it writes.
#
#   sh test_install.sh MESON PYTHON DOCTEST.PY SRC_DIR BUILD_DIR CC [CFLAG ...]
set -eu
meson=$1
py=$2
runner=$3
src=$4
build=$5
cc=$6
shift 6
command -v pkg-config >/dev/null || { echo "no pkg-config: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL: $*"
    exit 1
}
dest=$tmp/dest
"$meson" install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; bad "meson install --destdir failed"; }
pc=$(find "$dest" -name taskir.pc | head -n 1)
[ -n "$pc" ] || bad "no taskir.pc installed"
bin=$(find "$dest" -type f -name taskir-dump | head -n 1)
[ -n "$bin" ] || bad "no taskir-dump installed"
inc=$(dirname "$(dirname "$(find "$dest" -path '*/include/frontend/cinn/cinn.h' | head -n 1)")")
[ "$inc" != . ] || bad "no include/frontend/cinn/cinn.h installed"
for h in frontend/cinn/cinn_prims.def frontend/opgraph/opgraph.h frontend/lower/lower.h \
    frontend/interp/interp.h frontend/cvm/cvm.h frontend/onnx/onnx.h taskir/diag.h \
    taskir/graph.h taskir/pbio.h; do
    [ -f "$inc/../$h" ] || bad "no include/$h installed"
done
for x in taskir-compile taskir-run; do
    [ -x "$(dirname "$bin")/$x" ] || bad "no $x installed"
done
# taskir-run's XML readers' module, in the folder the installed taskir-run names
# (tools/xmlmod.h: LIBDIR/taskir)
mod=$(find "$dest" -name libtaskir-xml.so | head -n 1)
[ -n "$mod" ] || bad "no libtaskir-xml.so installed"
moddir=$(dirname "${mod#"$dest"}")
grep -q -F "$moddir" "$(dirname "$bin")/taskir-run" ||
    bad "the installed taskir-run does not name $moddir, where libtaskir-xml.so is"

"$py" "$runner" --extract cinn_example.c "$src/docs/cinn.md" >"$tmp/example.c" ||
    bad "no C example in docs/cinn.md"
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest \
    pkg-config --cflags --libs --static taskir) || bad "pkg-config taskir failed"
echo "flags: $flags"
case " $flags " in
*"$src"* | *"$build"*) bad "the flags name the source or build dir: $flags" ;;
esac
cd "$tmp"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror "$@" -o example example.c $flags ||
    bad "the C API example does not build against the installed headers"
./example || bad "the C API example exited $?"
[ -s prog.pb ] && [ -s prog.xml ] || bad "the example wrote no prog.pb / prog.xml"
"$bin" prog.pb --verify || bad "the installed taskir-dump does not verify prog.pb"
"$(dirname "$bin")/taskir-compile" prog.xml -o again.pb || bad "prog.xml does not compile"
cmp prog.pb again.pb || bad "prog.xml compiles to another graph than the builder's"
echo "ok: installed into $dest, the C API example builds and runs"
