# Sourced by scripts/serve and scripts/test: installs what the web build needs, only when missing.
set -euo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
WASM_BINDGEN_VERSION=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
command -v wasm-bindgen >/dev/null && wasm-bindgen --version | grep -q " $WASM_BINDGEN_VERSION" || cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"

# Debian packages, as root or through sudo.
apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
}

# wasm-opt from npm's binaryen 132 (Debian's binaryen 108 breaks the wasm): -Oz takes a third off
# the wasm (6.07 MB after it in the build of 2026-11-30, 4c60faa). It runs as WebAssembly in node, so it takes minutes.
optimize_wasm() {
  local opt=target/binaryen/node_modules/.bin/wasm-opt
  command -v npm >/dev/null || apt_install nodejs npm
  [ -x "$opt" ] && "$opt" --version | grep -q 'version 132' || npm install --prefix target/binaryen binaryen@132 --no-audit --no-fund --silent
  "$opt" -Oz "$1" -o "$1"
}

# The app in dist/: the wasm with wasm-bindgen's JavaScript glue, index.html, and www/ as it is.
# Built beside dist/ and moved in at the end, so a failed build leaves the last good one served.
build_app() {
  local wasm=target/wasm32-unknown-unknown/release/wgslate-web.wasm next=target/dist-next
  cargo build --release --target wasm32-unknown-unknown -p wgslate-web
  rm -rf "$next" && mkdir -p "$next"
  wasm-bindgen --target web --no-typescript --out-dir "$next" --out-name wgslate-web "$wasm"
  optimize_wasm "$next/wgslate-web_bg.wasm"
  cp index.html "$next/" && cp -R www/. "$next/"
  # METEOR's WordNet synonym table, which the page downloads only when METEOR is asked for.
  cargo build --release -p wgslate-cli
  [ -d /usr/share/wordnet ] || apt_install wordnet-base
  mkdir -p "$next/data" && target/release/wgslate wordnet --out "$next/data/wordnet-3.0.bin"
  rm -rf dist && mv "$next" dist
}
