#!/usr/bin/env python3
"""Records PyTorch profiler (Kineto) Chrome traces of three small GPU programs, for `streamlab import`.

Runs where PyTorch and a CUDA GPU are present; downloads nothing (every model has random weights and
random inputs). For each program it runs warm-up steps, then profiles exactly one step with CUDA
synchronization events on (cudaStreamWaitEvent / synchronize records carry the event and stream they
wait on), and writes OUT/<name>.json.gz plus OUT/capture-info.json (device, driver, CUDA, PyTorch, date).

Programs:
  cnn          one training step of a small ResNet (conv/batch-norm/ReLU, SGD) on 64x64 images
  transformer  one training step of a 4-layer transformer encoder (AdamW)
  multistream  input copies on a side stream, two branches on two streams (one at high priority),
               joins by events, a result copied back to pinned memory

Usage: capture_kineto.py OUT_DIR [--only NAME ...] [--suffix S]
  --suffix names the files <name><S>.json.gz (e.g. --suffix=-conn1 for a run under
  CUDA_DEVICE_MAX_CONNECTIONS=1, which must be set before the process starts).
"""
import argparse
import datetime
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule

WARMUP_STEPS = 3


# ----------------------------------------------------------------------------------------------- programs
class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.short is None else self.short(x)))


class SmallResNet(nn.Module):
    def __init__(self, classes=100):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
        self.layers = nn.Sequential(BasicBlock(64, 64, 1), BasicBlock(64, 128, 2), BasicBlock(128, 256, 2),
                                    BasicBlock(256, 512, 2))
        self.head = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def cnn_program():
    dev = torch.device("cuda")
    model = SmallResNet().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 3, 64, 64, device=dev)
    y = torch.randint(0, 100, (64,), device=dev)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    return step


def transformer_program():
    dev = torch.device("cuda")
    layer = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    model = nn.Sequential(nn.TransformerEncoder(layer, num_layers=4), nn.Linear(512, 512)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(16, 256, 512, device=dev)
    target = torch.randn(16, 256, 512, device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(model(x), target)
        loss.backward()
        opt.step()

    return step


def multistream_program():
    dev = torch.device("cuda")
    copy_stream = torch.cuda.Stream()  # input copies
    branch_a = torch.cuda.Stream()  # the heavy branch, default priority
    branch_b = torch.cuda.Stream(priority=-1)  # the latency-critical branch, high priority
    main = torch.cuda.current_stream()
    chunks = 4
    host_in = [torch.randn(2048, 2048).pin_memory() for _ in range(chunks)]
    dev_in = [torch.empty(2048, 2048, device=dev) for _ in range(chunks)]
    w_a = torch.randn(2048, 2048, device=dev)
    w_b = torch.randn(2048, 512, device=dev)
    host_out = torch.empty(chunks, 2048, 512).pin_memory()
    outs = [None] * chunks

    def step():
        copied = []
        with torch.cuda.stream(copy_stream):
            for i in range(chunks):
                dev_in[i].copy_(host_in[i], non_blocking=True)
                ev = torch.cuda.Event()
                ev.record(copy_stream)
                copied.append(ev)
        done_a, done_b = [], []
        for i in range(chunks):
            with torch.cuda.stream(branch_a):
                branch_a.wait_event(copied[i])
                a = torch.relu(dev_in[i] @ w_a) @ w_a
                ev = torch.cuda.Event()
                ev.record(branch_a)
                done_a.append((ev, a))
            with torch.cuda.stream(branch_b):
                branch_b.wait_event(copied[i])
                b = torch.tanh(dev_in[i] @ w_b) * 0.5
                ev = torch.cuda.Event()
                ev.record(branch_b)
                done_b.append((ev, b))
        for i in range(chunks):
            main.wait_event(done_a[i][0])
            main.wait_event(done_b[i][0])
            a, b = done_a[i][1], done_b[i][1]
            a.record_stream(main)  # made on a branch stream, read here: keep its memory until main is done
            b.record_stream(main)
            outs[i] = a[:, :512] + b
            host_out[i].copy_(outs[i], non_blocking=True)

    return step


PROGRAMS = {"cnn": cnn_program, "transformer": transformer_program, "multistream": multistream_program}


# ----------------------------------------------------------------------------------------------- capture
def experimental_config():
    """CUDA synchronization records (stream-wait-event with the recording stream, synchronizes)."""
    try:
        return torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    except (AttributeError, TypeError) as e:  # older PyTorch: the import still works, without joins
        print(f"warning: no CUDA sync events in this PyTorch ({e})", file=sys.stderr)
        return None


def capture(name, out_dir, suffix):
    step = PROGRAMS[name]()
    for _ in range(WARMUP_STEPS):
        step()
    torch.cuda.synchronize()
    raw = os.path.join(tempfile.mkdtemp(), f"{name}.json")
    kwargs = {}
    cfg = experimental_config()
    if cfg is not None:
        kwargs["experimental_config"] = cfg
    # One warm-up step with CUPTI on (its first records carry set-up cost), then one recorded step.
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=0, warmup=1, active=1, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(raw), **kwargs) as prof:
        for _ in range(2):
            step()
            torch.cuda.synchronize()
            prof.step()
    path = os.path.join(out_dir, f"{name}{suffix}.json.gz")
    with open(raw, "rb") as fin, gzip.open(path, "wb", compresslevel=9) as fout:
        shutil.copyfileobj(fin, fout)
    events = json.load(open(raw))["traceEvents"]
    gpu = sum(1 for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    print(f"{name}{suffix}: {len(events)} events, {gpu} GPU activities, {os.path.getsize(path)} bytes gzip")


def driver_version():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--only", nargs="*", choices=sorted(PROGRAMS), default=sorted(PROGRAMS))
    ap.add_argument("--suffix", default="")
    ap.add_argument("--plain", action="store_true",
                    help="run the programs' steps without the PyTorch profiler (under an outside profiler)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("capture_kineto.py: error: no CUDA device")
    os.makedirs(args.out_dir, exist_ok=True)
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    for name in args.only:
        if args.plain:
            step = PROGRAMS[name]()
            for _ in range(WARMUP_STEPS + 1):
                step()
            torch.cuda.synchronize()
        else:
            capture(name, args.out_dir, args.suffix)
    info = {
        "device": torch.cuda.get_device_name(0),
        "driver": driver_version(),
        "cuda": torch.version.cuda,
        "pytorch": torch.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cuda_device_max_connections": os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS", "default"),
        "programs": args.only,
    }
    info_path = os.path.join(args.out_dir, f"capture-info{args.suffix}.json")
    with open(info_path, "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    print(json.dumps(info))


if __name__ == "__main__":
    main()
