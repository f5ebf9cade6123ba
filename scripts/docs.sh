#!/bin/sh
# The API reference from include/unlost.h into OUTDIR/html (make docs, and
# the CTest test test_apidocs). Exits 1 when Doxygen warns (an undocumented
# public symbol, a broken reference), printing the warnings; 77 when
# doxygen is missing (make deps installs it).
#   scripts/docs.sh SOURCE_DIR OUTDIR
src=$1 out=$2
command -v doxygen >/dev/null || { echo "docs: doxygen is missing (make deps installs it)" >&2; exit 77; }
rm -rf "$out" && mkdir -p "$out" || exit 1
cd "$src" || exit 1
{ cat Doxyfile; echo "OUTPUT_DIRECTORY = $out"; echo "WARN_LOGFILE = $out/warnings.log"; } | doxygen - || exit 1
if [ -s "$out/warnings.log" ]; then
  cat "$out/warnings.log" >&2
  echo "docs: $(wc -l < "$out/warnings.log") warnings (see $out/warnings.log)" >&2
  exit 1
fi
echo "docs: 0 warnings; open $out/html/index.html"
