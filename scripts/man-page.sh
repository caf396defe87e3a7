#!/usr/bin/env bash
# Writes the ciosim(1) man page with help2man: the top-level --help, then each subcommand's --help as a
# section of its own, so `man ciosim` says everything `ciosim SUBCOMMAND --help` does.
# Usage: scripts/man-page.sh PATH/TO/ciosim OUT.1
set -euo pipefail
bin="$1"; out="$2"
command -v help2man >/dev/null || { echo "man-page.sh: help2man is not installed (scripts/install-deps.sh)" >&2; exit 2; }
inc="$(mktemp)"; wrap="$(mktemp -d)"; trap 'rm -rf "$inc" "$wrap"' EXIT
# The program runs as plain `ciosim` (argv[0]), so its usage lines do not carry the build folder's path.
printf '#!/usr/bin/env bash\nexec -a ciosim %q "$@"\n' "$(realpath "$bin")" > "$wrap/ciosim"
chmod +x "$wrap/ciosim"
bin="$wrap/ciosim"
for sub in run plan list plot merge validate calibrate capture advise; do
  "$bin" "$sub" --help >/dev/null 2>&1 || continue   # a subcommand this build does not have
  { echo "[COMMAND: $sub]"; "$bin" "$sub" --help | sed 's/^\./\\\&./'; echo; } >> "$inc"
done
cat >> "$inc" <<'TXT'
[EXIT STATUS]
0 success; 2 bad input (one line on stderr naming the problem and the valid choices, nothing written);
1 a simulation, verification or I/O failure (nothing claimed as a result).
[FILES]
.B platforms/NAME.toml
and
.B scenarios/*.toml
in the source tree, or PREFIX/share/ciosim once installed; $CIOSIM_DATA_DIR is searched first. The
README and the docs (models, techniques, validation, replay, results, ...): PREFIX/share/doc/ciosim.
TXT
help2man --no-info --no-discard-stderr --section 1 --name "discrete-event simulation of collective I/O on clusters" \
  --include "$inc" --output "$out" "$bin"
