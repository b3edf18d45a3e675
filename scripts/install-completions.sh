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
#   share/man/man1/streamplay.1      (swift-argument-parser's generate-manual plugin, which
#                                    builds the executables in release mode the first time)
# --binary PATH uses that streamplay executable; otherwise the release build is made
# (`swift build -c release --static-swift-stdlib --product streamplay`, as scripts/bench.sh and
# scripts/demo.sh build it). --no-man skips the man page.
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
  # The plugin builds the package's executables in release mode and writes one page per
  # executable into its work directory (it takes no output option).
  swift package plugin generate-manual >&2
  page=.build/plugins/GenerateManual/outputs/streamplay/streamplay.1
  [[ -f $page ]] || { echo "install-completions: the plugin made no $page" >&2; exit 1; }
  mkdir -p "$prefix/share/man/man1"
  install -m 644 "$page" "$prefix/share/man/man1/streamplay.1"
  echo "install-completions: $prefix/share/man/man1/streamplay.1"
fi
