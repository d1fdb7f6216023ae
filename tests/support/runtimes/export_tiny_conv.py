# Writes tests/fixtures/models/tiny-conv.onnx, the model the ONNX Runtime live test serves: the same small conv net
# torch_serve.py runs, exported by Debian's python3-torch (no weights from a hub). Run from the repository root:
#   /usr/bin/python3 tests/support/runtimes/export_tiny_conv.py
import torch

torch.manual_seed(0)
net = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3), torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10),
).eval()
torch.onnx.export(net, torch.randn(2, 3, 48, 48), "tests/fixtures/models/tiny-conv.onnx", input_names=["x"], output_names=["y"], opset_version=13)
