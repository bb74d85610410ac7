# Sourced by scripts/serve and scripts/test: installs what the web build needs, only when missing.
set -euo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
WASM_BINDGEN_VERSION=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
command -v trunk >/dev/null && trunk --version | grep -q ' 0.21.14' || cargo install --locked trunk --version 0.21.14
command -v wasm-bindgen >/dev/null && wasm-bindgen --version | grep -q " $WASM_BINDGEN_VERSION" || cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"

# Debian packages, as root or through sudo.
apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
}

build_app() {
  trunk build --release
  cargo build --release -p wgslate-cli
}
