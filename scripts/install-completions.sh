#!/usr/bin/env bash
# Installs streamplay's shell completions (bash, zsh, fish) and its man page, all generated from
# the command's swift-argument-parser definition.
#
#   PREFIX=/usr/local bash scripts/install-completions.sh [--binary PATH] [--no-man]
#
# PREFIX (default /usr/local) receives:
#   share/bash-completion/completions/streamplay
#   share/zsh/site-functions/_streamplay
#   share/fish/vendor_completions.d/streamplay.fish
#   share/man/man1/streamplay.1      (swift-argument-parser's generate-manual tool, built in
#                                    release mode the first time, run on the executable)
# --binary PATH uses that streamplay executable (with its libStreamPlayCLI.so beside it);
# otherwise the release build is made (`swift build -c release --static-swift-stdlib` of the
# products streamplay and StreamPlayCLI, as scripts/bench.sh and scripts/demo.sh build them).
# --no-man skips the man page.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
prefix=${PREFIX:-/usr/local}
binary=""
man=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --binary)
      [[ $# -ge 2 ]] || { echo "usage: $0 [--binary PATH] [--no-man]" >&2; exit 2; }
      binary=$2
      shift 2
      ;;
    --no-man) man=0; shift ;;
    *)
      echo "usage: $0 [--binary PATH] [--no-man]" >&2
      exit 2
      ;;
  esac
done

if [[ -z $binary ]]; then
  swift build -c release --static-swift-stdlib --product streamplay
  swift build -c release --static-swift-stdlib --product StreamPlayCLI
  binary=.build/release/streamplay
fi
[[ -x $binary ]] || { echo "install-completions: $binary is not an executable" >&2; exit 1; }

install_generated() { # shell destination
  mkdir -p "$(dirname "$2")"
  "$binary" --generate-completion-script "$1" >"$2.tmp"
  mv -f "$2.tmp" "$2"
  echo "install-completions: $2"
}
install_generated bash "$prefix/share/bash-completion/completions/streamplay"
install_generated zsh "$prefix/share/zsh/site-functions/_streamplay"
install_generated fish "$prefix/share/fish/vendor_completions.d/streamplay.fish"

if [[ $man -eq 1 ]]; then
  # The tool of swift-argument-parser's generate-manual plugin, run on the executable directly:
  # the plugin only looks at executables written in Swift, and streamplay's is a C front end
  # (the command runs in libStreamPlayCLI.so).
  swift build -c release --static-swift-stdlib --product generate-manual >&2
  pages=$(mktemp -d "${TMPDIR:-/tmp}/streamplay-man.XXXXXX")
  trap 'rm -rf "$pages"' EXIT
  .build/release/generate-manual "$binary" --output-directory "$pages"
  page=$pages/streamplay.1
  [[ -f $page ]] || { echo "install-completions: generate-manual made no streamplay.1" >&2; exit 1; }
  mkdir -p "$prefix/share/man/man1"
  install -m 644 "$page" "$prefix/share/man/man1/streamplay.1"
  echo "install-completions: $prefix/share/man/man1/streamplay.1"
fi
