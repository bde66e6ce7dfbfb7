#!/usr/bin/env python3
"""Profile a randomly initialised Llama-like decoder (no downloaded weights)
through one prefill and a few decode steps under torch.profiler, and save the
Chrome-trace JSON that `kjudge trace import` reads.

    python3 bench/trace_llama.py -o trace.json [--layers 4] [--decode 8]

Phases are marked with record_function("prefill") and record_function("decode"),
which the importer uses to keep their shapes apart.  Needs a GPU, torch and
transformers (both are on the H200 machine).
"""
import argparse
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True, help="trace file to write")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--kv-heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=5632)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--prompt", type=int, default=512)
    ap.add_argument("--decode", type=int, default=8)
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    args = ap.parse_args()

    import torch
    from torch.profiler import profile, ProfilerActivity, record_function
    try:
        from transformers import LlamaConfig, LlamaForCausalLM
    except ImportError as e:
        sys.exit(f"trace_llama: transformers is missing: {e}")
    if not torch.cuda.is_available():
        sys.exit("trace_llama: no CUDA device")

    torch.manual_seed(0)
    dtype = getattr(torch, args.dtype)
    cfg = LlamaConfig(hidden_size=args.hidden, intermediate_size=args.ffn,
                      num_hidden_layers=args.layers, num_attention_heads=args.heads,
                      num_key_value_heads=args.kv_heads, vocab_size=args.vocab,
                      max_position_embeddings=args.prompt + args.decode + 16)
    model = LlamaForCausalLM(cfg).to(device="cuda", dtype=dtype).eval()
    ids = torch.randint(0, args.vocab, (args.batch, args.prompt), device="cuda")

    def step_all():
        with torch.no_grad():
            with record_function("prefill"):
                out = model(input_ids=ids, use_cache=True)
            past = out.past_key_values
            nxt = out.logits[:, -1:].argmax(-1)
            for _ in range(args.decode):
                with record_function("decode"):
                    out = model(input_ids=nxt, past_key_values=past, use_cache=True)
                past = out.past_key_values
                nxt = out.logits[:, -1:].argmax(-1)
        torch.cuda.synchronize()

    step_all()  # warm-up: cuBLAS handles, autotuning
    t0 = time.time()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 record_shapes=True) as prof:
        step_all()
    prof.export_chrome_trace(args.output)
    with open(args.output) as f:
        ev = json.load(f).get("traceEvents", [])
    gpu = [e for e in ev if e.get("cat") == "kernel"]
    print(f"trace_llama: {args.output}: {len(ev)} events, {len(gpu)} kernels, "
          f"{sum(e.get('dur', 0) for e in gpu) / 1e3:.2f} ms GPU time, "
          f"profiled in {time.time() - t0:.2f} s")


if __name__ == "__main__":
    main()
