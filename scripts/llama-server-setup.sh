#!/bin/bash
# Installs Debian unstable's llama.cpp server (CPU build) into DIR without touching the system, and writes
#   DIR/llama-server  a wrapper that runs it with its own loader and libraries
#   DIR/tiny.gguf     a random 2-layer llama model (a few hundred KB) made with Debian's python3-gguf
# for the integration tests (test/integration/llama-server.test.ts). Needs apt-get, dpkg and python3, and
# network access to the Debian mirror the machine's apt is configured with; needs no root and installs nothing
# system-wide (apt runs with a private sources list, lists and cache under DIR; packages are unpacked with
# dpkg -x). If python3 lacks numpy or yaml (both needed by gguf), Debian's python3-numpy / python3-yaml for the
# machine's own release are unpacked into DIR too and put on PYTHONPATH.
# Idempotent: exits 0 at once when DIR already holds both files (and the wrapper points into DIR).
# Quiet on success; on failure it says what failed and prints the tail of DIR/setup.log.
# usage: scripts/llama-server-setup.sh DIR
set -euo pipefail

die() {
  echo "llama-server-setup: $*" >&2
  exit 1
}

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: $0 DIR"
dir=$(realpath -m "$1")
# done already: both files there, and the wrapper points into this DIR (not a copy from elsewhere)
ready() { [ -x "$dir/llama-server" ] && [ -s "$dir/tiny.gguf" ] && grep -qF "$dir/root/" "$dir/llama-server"; }
ready && exit 0

for tool in apt-get dpkg python3; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "'$tool' not found: this script needs a Debian-like system with apt-get, dpkg and python3"
done
case "$(dpkg --print-architecture)" in
  amd64) triplet=x86_64-linux-gnu loader=ld-linux-x86-64.so.2 ;;
  arm64) triplet=aarch64-linux-gnu loader=ld-linux-aarch64.so.1 ;;
  *) die "unsupported architecture '$(dpkg --print-architecture)' (amd64 or arm64 only)" ;;
esac

mkdir -p "$dir" || die "cannot create $dir"
# One setup at a time per DIR (parallel test processes share the cache dir).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$dir/.lock"
  flock 9
  ready && exit 0
fi

log="$dir/setup.log"
: >"$log"
step="starting"
on_exit() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "llama-server-setup: failed while $step (exit $rc); last lines of $log:" >&2
    tail -n 25 "$log" >&2 || true
  fi
}
trap on_exit EXIT

mkdir -p "$dir"/apt/lists/partial "$dir"/apt/syslists/partial "$dir"/debs "$dir"/pydebs "$dir"/root "$dir"/pyroot

# --- llama.cpp from Debian unstable, on the mirror the machine already uses ---------------------------------
step="finding the Debian mirror"
uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$uri" ] || uri=$(awk '/^deb / && !/security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$uri" ] || uri=http://deb.debian.org/debian
echo "deb [trusted=yes] $uri sid main" >"$dir/apt/sources.list"
common=(-o Debug::NoLocking=1 -o APT::Sandbox::User=root -o APT::Get::List-Cleanup=0)
sid=("${common[@]}" -o Dir::Etc::SourceList="$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o Dir::State::Lists="$dir/apt/lists" -o Dir::Cache::archives="$dir/debs")

step="running apt-get update for $uri sid"
apt-get "${sid[@]}" update -qq >>"$log" 2>&1
step="downloading the llama.cpp packages"
(cd "$dir/debs" && apt-get "${sid[@]}" download -qq llama.cpp-tools libllama0 libggml0 libc6 libstdc++6 \
  libgcc-s1 libgomp1 libssl3t64 python3-gguf) >>"$log" 2>&1
step="unpacking the llama.cpp packages"
for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$dir/root"; done >>"$log" 2>&1
lib="$dir/root/usr/lib/$triplet"
[ -x "$dir/root/usr/bin/llama-server" ] && [ -e "$lib/$loader" ] || die "llama-server or $loader missing after unpacking"
# ggml looks for its CPU backends beside the running executable, which is the loader here
ln -sf "$lib"/ggml/backends0/libggml-cpu-*.so "$lib"/

# --- python3 with numpy and yaml, for gguf ------------------------------------------------------------------
step="checking python3 for numpy and yaml"
py=""
for cand in python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import numpy, yaml' >>"$log" 2>&1; then
    py=$cand
    break
  fi
done
pypath="$dir/root/usr/lib/python3/dist-packages"
pylib=""
if [ -z "$py" ]; then
  # The same way as llama.cpp, but from the machine's own release (its configured sources), so that the
  # compiled modules match the system's python3.
  py=python3
  [ -x /usr/bin/python3 ] && py=/usr/bin/python3
  sys=("${common[@]}" -o Dir::State::Lists="$dir/apt/syslists" -o Dir::Cache::archives="$dir/pydebs")
  step="running apt-get update for the system's sources (for python3-numpy)"
  apt-get "${sys[@]}" update -qq >>"$log" 2>&1
  step="downloading python3-numpy, python3-yaml and their libraries"
  pkgs=(python3-numpy python3-yaml libyaml-0-2 libblas3 liblapack3 libgfortran5 libquadmath0)
  avail=()
  for p in "${pkgs[@]}"; do
    apt-cache "${sys[@]}" show "$p" >/dev/null 2>&1 && avail+=("$p")
  done
  (cd "$dir/pydebs" && apt-get "${sys[@]}" download -qq "${avail[@]}") >>"$log" 2>&1
  step="unpacking python3-numpy and python3-yaml"
  for d in "$dir"/pydebs/*.deb; do dpkg -x "$d" "$dir/pyroot"; done >>"$log" 2>&1
  pypath="$pypath:$dir/pyroot/usr/lib/python3/dist-packages"
  # libblas.so.3 / liblapack.so.3 live in alternatives directories (blas/, lapack/) normally symlinked by dpkg
  pylib="$dir/pyroot/usr/lib/$triplet:$dir/pyroot/usr/lib/$triplet/blas:$dir/pyroot/usr/lib/$triplet/lapack"
  step="importing the unpacked numpy and yaml with $py"
  PYTHONPATH="$pypath" LD_LIBRARY_PATH="$pylib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$py" -c 'import numpy, yaml' >>"$log" 2>&1
fi

# --- the tiny model ------------------------------------------------------------------------------------------
step="writing tiny.gguf with $py"
PYTHONPATH="$pypath" LD_LIBRARY_PATH="$pylib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$py" - "$dir/tiny.gguf.tmp" >>"$log" 2>&1 <<'PY'
import sys, numpy as np
from gguf import GGUFWriter, TokenType
w = GGUFWriter(sys.argv[1], "llama")
toks = ["<unk>", "<s>", "</s>"] + [f"<0x{i:02X}>" for i in range(256)] + ["\u2581the", "\u2581a", "\u2581hello", "\u2581world"]
types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL] + [TokenType.BYTE] * 256 + [TokenType.NORMAL] * 4
V, E, F, L, H = len(toks), 64, 128, 2, 4
w.add_name("tiny-random-llama"); w.add_context_length(2048); w.add_embedding_length(E); w.add_block_count(L)
w.add_feed_forward_length(F); w.add_head_count(H); w.add_head_count_kv(H); w.add_rope_dimension_count(E // H)
w.add_layer_norm_rms_eps(1e-5); w.add_file_type(0); w.add_tokenizer_model("llama"); w.add_token_list(toks)
w.add_token_scores([0.0] * V); w.add_token_types(types); w.add_bos_token_id(1); w.add_eos_token_id(2); w.add_unk_token_id(0)
rng = np.random.default_rng(0)
def t(n, s): w.add_tensor(n, (rng.standard_normal(s) * 0.02).astype(np.float32))
t("token_embd.weight", (V, E)); w.add_tensor("output_norm.weight", np.ones(E, np.float32)); t("output.weight", (V, E))
for i in range(L):
    w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(E, np.float32))
    for n in ["attn_q", "attn_k", "attn_v", "attn_output"]: t(f"blk.{i}.{n}.weight", (E, E))
    w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(E, np.float32))
    t(f"blk.{i}.ffn_gate.weight", (F, E)); t(f"blk.{i}.ffn_up.weight", (F, E)); t(f"blk.{i}.ffn_down.weight", (E, F))
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
PY

# --- the wrapper, written last: its presence (with tiny.gguf) marks a finished setup ---------------------------
step="writing and checking the llama-server wrapper"
cat >"$dir/llama-server.tmp" <<W
#!/bin/sh
exec "$lib/$loader" --library-path "$lib:$lib/llama:$lib/ggml/backends0" "$dir/root/usr/bin/llama-server" "\$@"
W
chmod +x "$dir/llama-server.tmp"
"$dir/llama-server.tmp" --version >>"$log" 2>&1
mv -f "$dir/tiny.gguf.tmp" "$dir/tiny.gguf"
mv -f "$dir/llama-server.tmp" "$dir/llama-server"
