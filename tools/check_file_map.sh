#!/usr/bin/env bash
# Fails when docs/ARCHITECTURE.md's file map and the tree disagree: every source file of
# include/ddb/, engine/, protocol/, server/, cli/ and util/ and of their subsystem folders (unit
# tests aside) is named in its folder's table, and every file a table names exists.
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/ARCHITECTURE.md
fail=0
for dir in $(find include/ddb engine protocol server cli util -type d | sort); do
  # The table after the "<dir>/ ..." line of the "## File map" section: its first column.
  listed=$(awk -v d="$dir/" '
    /^## File map/ { in_map = 1; next }
    in_map && /^## / { exit }
    in_map && substr($0, 1, length(d)) == d && substr($0, length(d) + 1, 1) ~ /^[ :]?$/ { in_dir = 1; next }
    in_dir && /^\|/ { print; rows = 1; next }
    in_dir && rows { exit }
  ' "$doc" | cut -d'|' -f2 | tr ',' '\n' | sed 's/ //g' | grep -vE '^(file|---)$' | grep . || true)
  actual=$(cd "$dir" && ls -p | grep -v / | grep -E '\.(h|cc|map)$' | grep -v '_test\.cc$' || true)
  missing=$(comm -23 <(sort <<<"$actual") <(sort -u <<<"$listed"))
  gone=$(comm -13 <(sort <<<"$actual") <(sort -u <<<"$listed"))
  if [[ -n "$missing" ]]; then echo "$doc file map lacks $dir/:" $missing; fail=1; fi
  if [[ -n "$gone" ]]; then echo "$doc file map lists files $dir/ does not have:" $gone; fail=1; fi
done
[[ $fail -eq 0 ]] && echo "check_file_map: ok"
exit $fail
