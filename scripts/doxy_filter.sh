#!/bin/sh
# Doxygen INPUT_FILTER for include/unlost.h: the header documents itself in
# plain /* */ comments; this turns them into Doxygen comments on the fly
# (the header itself is not changed). Line numbers are kept, so Doxygen's
# warnings point at the real lines. POSIX sh + awk (mawk is enough).
#
#   - the first comment of the file          -> /** \file ... */
#   - a comment ending on the line before a declaration (not a blank line)
#                                             -> /** ... */  (documents it)
#   - a comment after code on the same line   -> /**< ... */ (documents that member)
#   - a section banner "/* ---- title ----"   -> left alone
#   - UL_API NAME_at(...) right after "#define NAME(...)" with no comment of
#     its own gets "\copydoc NAME" and a sentence on the explicit call site,
#     on the same line.
# Comments already written as /** or /**< pass through unchanged.
exec awk '
function is_blank(s) { return s ~ /^[ \t]*$/ }
{ line[NR] = $0 }
END {
  n = NR; seen_code = 0; in_c = 0; cdoc = 0; macro = ""; macro_line = 0; docd = 0
  for (i = 1; i <= n; i++) {
    s = line[i]
    if (in_c) {                     # inside a comment started earlier
      if (index(s, "*/")) { in_c = 0; if (cdoc) docd = i }
      print s; continue
    }
    if (s ~ /^[ \t]*\/\*/) {         # a comment starting the line
      p = index(s, "/*")
      if (substr(s, p + 2, 1) == "*" || substr(s, p + 2, 1) == "!") {
        kind = "doc"               # already a Doxygen comment
      } else if (!seen_code) {
        kind = "file"
      } else if (s ~ /^[ \t]*\/\* ----/) {
        kind = "plain"
      } else {
        j = i; while (j <= n && !index(substr(line[j], (j == i ? p + 2 : 1)), "*/")) j++
        kind = (j < n && !is_blank(line[j + 1]) && line[j + 1] !~ /^[ \t]*#(if|ifdef|ifndef|endif|else|undef)/) ? "doc" : "plain"
      }
      if (kind == "file") s = substr(s, 1, p + 1) "* \\file" substr(s, p + 2)
      else if (kind == "doc" && substr(s, p + 2, 1) != "*" && substr(s, p + 2, 1) != "!")
        s = substr(s, 1, p + 1) "*" substr(s, p + 2)
      cdoc = (kind == "doc" || kind == "file")
      if (!index(substr(s, p + 2), "*/")) in_c = 1
      else docd = cdoc ? i : 0
      print s; continue
    }
    if (!is_blank(s)) seen_code = 1
    # #define NAME(args) NAME_at(...): remember NAME and whether it had docs.
    if (s ~ /^#define [a-z_0-9]+\(/) {
      macro = s; sub(/^#define /, "", macro); sub(/\(.*/, "", macro)
      macro_line = i; macro_docd = (docd == i - 1 && docd > 0)
    }
    if (s ~ /^UL_API / && macro != "" && i - macro_line <= 2 && index(s, " " macro "_at(")) {
      if (macro_docd)
        s = "/** \\copydoc " macro " The `_at` form takes the call site explicitly (UL_SITE or your own ul_site). */ " s
      macro = ""
    }
    # A trailing comment after code documents that line (struct member,
    # enum value).
    p = index(s, "/*")
    if (p > 1 && !is_blank(substr(s, 1, p - 1)) && substr(s, p + 2, 1) != "*") {
      s = substr(s, 1, p + 1) "*<" substr(s, p + 2)
      if (!index(substr(s, p + 2), "*/")) { in_c = 1; cdoc = 0 }
    }
    print s
  }
}' "$1"
