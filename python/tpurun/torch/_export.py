"""tpurun.torch.export: a PyTorch module as StableHLO text (the ahead-of-time path)."""


def export(module, *example_inputs):
    """StableHLO text of module(*example_inputs) that tpucc compiles."""
    raise NotImplementedError("tpurun.torch.export: not yet written")
