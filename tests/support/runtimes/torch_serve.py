# A small PyTorch inference service for the live findings test: a conv net in a serving loop, each request timed
# and sent to the agent's StatsD intake. Its pool comes from OMP_NUM_THREADS, as torch.set_num_threads sets it.
# Usage: python3 torch_serve.py STATSD_PORT SERIES_NAME
import os
import sys
import time

import statsd
import torch

torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
timings = statsd.StatsClient("127.0.0.1", int(sys.argv[1]))
torch.manual_seed(0)
net = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3), torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10),
).eval()
x = torch.randn(2, 3, 48, 48)
with torch.no_grad():
    while True:
        started = time.perf_counter()
        net(x)
        timings.timing(sys.argv[2], (time.perf_counter() - started) * 1000)
        time.sleep(0.005)
