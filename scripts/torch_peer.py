#!/usr/bin/env python3
"""PyTorch eager peer of the shipped Transformer, for the README's GPU comparison (dev-time only).

Loads www/models/en-de/transformer/model.safetensors (f16 or int8, widened to f32) and decodes greedily at
batch 1 with a K/V cache, the same computation as crates/model/src/transformer.rs. The inputs come
from `wgslate bench --dump ids.json` (source ids and the candle reference's greedy tokens), so no
tokenizer is needed and the tokens can be checked:

    wgslate bench --model www/models/en-de/transformer --sentences 50 --dump ids.json
    python3 scripts/torch_peer.py --model www/models/en-de/transformer --ids ids.json --device cuda

Prints JSON: device, ms/sentence for batch-1 greedy (after a warm-up), and how many sentences gave
the reference's tokens.
"""
import argparse
import json
import math
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F


def load_safetensors(path, device):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    data = raw[8 + n :]
    arrays = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        kind = {"F16": "<f2", "I8": "i1"}.get(meta["dtype"])
        assert kind, f"{name} is {meta['dtype']}"
        a, b = meta["data_offsets"]
        arrays[name] = np.frombuffer(data[a:b], dtype=kind).astype(np.float32).reshape(meta["shape"])
    out = {}
    for name, values in arrays.items():
        if name.endswith(".scale"):
            continue
        scale = arrays.get(name + ".scale")
        if scale is not None:
            # int8: value × scale, one scale per block of k / scale.shape[1] values of a row.
            values = (values.reshape(scale.shape[0], scale.shape[1], -1) * scale[:, :, None]).reshape(values.shape)
        out[name] = torch.from_numpy(values.copy()).to(device)
    return out


class Transformer:
    def __init__(self, w, cfg, device):
        self.w, self.cfg = w, cfg
        d, self.h = cfg["d_model"], cfg["n_heads"]
        pos = torch.zeros(cfg["max_len"], d, dtype=torch.float64)
        for i in range(d // 2):
            angle = torch.arange(cfg["max_len"], dtype=torch.float64) / (10000.0 ** (2.0 * i / d))
            pos[:, 2 * i], pos[:, 2 * i + 1] = angle.sin(), angle.cos()
        self.pos = pos.float().to(device)
        self.scale = math.sqrt(d)

    def lin(self, x, name):
        return F.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])

    def norm(self, x, name):
        return F.layer_norm(x, x.shape[-1:], self.w[name + ".weight"], self.w[name + ".bias"], 1e-5)

    def heads(self, x):
        b, t, d = x.shape
        return x.view(b, t, self.h, d // self.h).transpose(1, 2)

    def kv(self, x, name):
        k, v = self.lin(x, name + ".kv").chunk(2, dim=-1)
        return self.heads(k), self.heads(v)

    def attend(self, x, k, v, name):
        q = self.heads(self.lin(x, name + ".q"))
        p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1)
        o = (p @ v).transpose(1, 2).reshape(x.shape)
        return self.lin(o, name + ".o")

    def ffn(self, x, name):
        return self.lin(torch.relu(self.lin(x, name + ".ffn.up")), name + ".ffn.down")

    def embed(self, ids, offset):
        return self.w["embed.weight"][ids] * self.scale + self.pos[offset : offset + ids.shape[1]]

    def encode(self, src):
        x = self.embed(src, 0)
        for i in range(self.cfg["encoder_layers"]):
            p = f"encoder.{i}"
            h = self.norm(x, p + ".norm1")
            k, v = self.kv(h, p + ".self_attn")
            x = x + self.attend(h, k, v, p + ".self_attn")
            x = x + self.ffn(self.norm(x, p + ".norm2"), p)
        return self.norm(x, "encoder_norm")

    def greedy(self, src, bos, eos, max_steps):
        memory = self.encode(src)
        layers = self.cfg["decoder_layers"]
        cross = [self.kv(memory, f"decoder.{i}.cross_attn") for i in range(layers)]
        cache = [None] * layers
        token, out = torch.tensor([[bos]], device=src.device), []
        for t in range(max_steps):
            x = self.embed(token, t)
            for i in range(layers):
                p = f"decoder.{i}"
                h = self.norm(x, p + ".norm1")
                k, v = self.kv(h, p + ".self_attn")
                if cache[i] is not None:
                    k, v = torch.cat([cache[i][0], k], 2), torch.cat([cache[i][1], v], 2)
                cache[i] = (k, v)
                x = x + self.attend(h, k, v, p + ".self_attn")
                x = x + self.attend(self.norm(x, p + ".norm2"), *cross[i], p + ".cross_attn")
                x = x + self.ffn(self.norm(x, p + ".norm3"), p)
            logits = self.norm(x, "decoder_norm")[:, -1] @ self.w["embed.weight"].T
            token = torch.log_softmax(logits, dim=-1).argmax(dim=-1, keepdim=True)
            best = int(token.item())
            if best == eos:
                break
            out.append(best)
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--ids", required=True)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()
    cfg = json.load(open(f"{args.model}/config.json"))
    assert cfg["arch"] == "transformer", "the peer implements the Transformer only"
    dump = json.load(open(args.ids))
    model = Transformer(load_safetensors(f"{args.model}/model.safetensors", args.device), cfg, args.device)
    sources = [torch.tensor([s], device=args.device) for s in dump["sources"]]
    limit = lambda s: min(2 * s.shape[1] + 10, cfg["max_len"])
    sync = torch.cuda.synchronize if args.device.startswith("cuda") else (lambda: None)
    with torch.inference_mode():
        model.greedy(sources[0], dump["bos"], dump["eos"], limit(sources[0]))
        sync()
        t0 = time.perf_counter()
        outs = [model.greedy(s, dump["bos"], dump["eos"], limit(s)) for s in sources]
        sync()
        seconds = time.perf_counter() - t0
    same = sum(o == g for o, g in zip(outs, dump["greedy"]))
    name = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"
    print(json.dumps({"device": name, "torch": torch.__version__, "sentences": len(sources), "greedy_ms_per_sentence_batch1": round(1000 * seconds / len(sources), 2), "tokens_equal_to_reference": same}, indent=2))


if __name__ == "__main__":
    main()
