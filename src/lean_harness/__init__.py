"""lean-harness: a lean, file-only project memory for coding agents."""

__version__ = "0.1.0"
