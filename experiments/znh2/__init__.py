"""ZnH2 (host-managed SLC/QLC zones): experiments on the common runner."""
