#!/usr/bin/env bash
# Checks that the documents say what the tree holds (make lint):
# every file path a document names exists, and every corpus seed marked
# open is described in seeds/open-bugs.txt (an open seed whose bug is not
# listed would fail `make test`; one listed but marked fixed hides a bug).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

# Paths in backquotes, e.g. `core/node/state.go`; shared/ lives beside the repo.
for doc in README.md DESIGN.md seeds/README.md; do
	for p in $(grep -ohE '`[a-z_./-]+/[A-Za-z0-9_./-]+\.(go|txt|md|sh|toml)`' "$doc" | tr -d '`' | sort -u); do
		case "$p" in shared/*) p="../$p" ;; esac
		if [ ! -e "$p" ]; then
			echo "$doc names $p, which does not exist"
			status=1
		fi
	done
done

# A corpus line "<seed> <profile>  # ... (open...)" needs its seed named in an
# open-bugs line, and an open-bugs line must name a seed marked open.
open_seeds=$(grep -E '^[0-9]+ +[a-z]+ .*\(open' seeds/corpus.txt | awk '{print $1}' | sort -u || true)
listed=$(grep -vE '^#|^$' seeds/open-bugs.txt | grep -oE '\bseed [0-9]+' | awk '{print $2}' | sort -u || true)
for s in $open_seeds; do
	if ! grep -qx "$s" <<<"$listed"; then
		echo "seeds/corpus.txt marks seed $s open, but seeds/open-bugs.txt does not name it (seed $s)"
		status=1
	fi
done
for s in $listed; do
	if ! grep -qx "$s" <<<"$open_seeds"; then
		echo "seeds/open-bugs.txt names seed $s, which seeds/corpus.txt does not mark open"
		status=1
	fi
done
exit $status
