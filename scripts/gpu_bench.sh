#!/bin/bash
# The README's real-GPU benchmark (dev-time only): run from the repository root on a Linux machine
# with a GPU, a Vulkan loader and driver, and PyTorch. Needs a release `wgslate` (WGSLATE, default
# target/release/wgslate) and, optionally, the engine's kernel-test binary (KERNEL_TESTS: the
# `kernels-*` binary that `cargo test --release -p wgslate-engine --no-run` lists for tests/kernels.rs).
# Prints everything; nothing is asserted here (speed is never a test), but the token counts and
# differing lines it prints are the parity checks. Arguments pick parts (default all, about 9 minutes
# on an H100): kernels bench steps threads torch parity (torch reads the ids that bench writes, so
# it needs bench in the same call).
set -u
PARTS=" ${*:-kernels bench steps threads torch parity} "
part() { [[ "$PARTS" == *" $1 "* ]]; }
W=${WGSLATE:-target/release/wgslate}
M=www/models/en-de
T=www/data/test_2016_flickr.en
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
# NVIDIA containers may ship the ICD without the loader finding it.
ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f $ICD ] && export VK_DRIVER_FILES=$ICD
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
nproc
python3 -c "import torch; print('torch', torch.__version__)"
# Stop at once when wgpu finds no adapter (the H200 lent on 2026-11-28: the NVIDIA ICD loaded but
# gave no vkCreateInstance), rather than spend the lent minutes on CPU-only lines.
if "$W" bench --model $M/transformer --sentences 1 --batched 1 2>&1 | grep -q "no GPU adapter"; then
    echo "no GPU adapter for wgpu; set VK_LOADER_DEBUG=error to see why"; exit 1
fi
if part kernels && [ -n "${KERNEL_TESTS:-}" ]; then
    echo "== kernel tests (each kernel against its CPU twin)"
    timeout 300 "$KERNEL_TESTS" --test-threads 1 2>&1 | tail -25
fi
part bench && for m in transformer transformer-d224-distilled gru; do
    echo "== bench $m (WGSL engine on the GPU, candle on the CPU; the gpu backend line names the adapter)"
    timeout 300 "$W" bench --model $M/$m --sentences 50 --dump /tmp/ids-$m.json
done
# The bench runs built each engine as translate does (the step its probe chose: step_probe_ms).
part steps && for m in transformer gru; do
    for l in fused per-op $([ $m = transformer ] && echo per-op-attention); do
        echo "== bench $m with $l steps"
        timeout 300 "$W" bench --model $M/$m --sentences 50 --batched 256 --layers $l
    done
done
part threads && for th in $(nproc) 4 2 1; do
    echo "== bench transformer, RAYON_NUM_THREADS=$th"
    RAYON_NUM_THREADS=$th timeout 300 "$W" bench --model $M/transformer --sentences 50 --batched 256
done
part torch && echo "== PyTorch eager peer (batch-1 greedy over the same 50 sentences, tokens checked)"
part torch && for m in transformer transformer-d224-distilled transformer; do
    for d in cuda cpu; do timeout 300 python3 scripts/torch_peer.py --model $M/$m --ids /tmp/ids-$m.json --device $d; done
done
part parity || exit 0
echo "== GPU = CPU tokens over test_2016_flickr (1 000 sentences): differing lines"
parity() {
    src=$1; shift
    timeout 300 "$W" translate "$@" --backend gpu -i "$src" > /tmp/gpu.txt 2> /tmp/gpu.err
    timeout 300 "$W" translate "$@" --backend cpu -i "$src" > /tmp/cpu.txt 2>/dev/null
    echo "$*: $(wc -l < /tmp/gpu.txt) / $(wc -l < /tmp/cpu.txt) lines, differing $(diff /tmp/gpu.txt /tmp/cpu.txt | grep -c '^<') $(tail -1 /tmp/gpu.err)"
}
for m in transformer gru; do
    parity $T --model $M/$m
    parity $T --model $M/$m --beam 4
done
parity $T --model $M/transformer-d224-distilled --model $M/transformer-d224-bt
parity $T --model $M/transformer-d224-distilled --model $M/transformer-d224-bt --best
parity $T --model $M/transformer --sample --seed 1
diff /tmp/gpu.txt /tmp/cpu.txt
cp /tmp/gpu.txt /tmp/gpu-sample-1.txt
timeout 300 "$W" translate --model $M/transformer --sample --seed 1 --backend gpu -i $T > /tmp/gpu.txt 2>/dev/null
echo "sampling, GPU against GPU: differing $(diff /tmp/gpu.txt /tmp/gpu-sample-1.txt | grep -c '^<')"
parity www/data/test_2016_flickr.de --model www/models/de-en/transformer
parity $T --model www/models/en-fr/transformer
