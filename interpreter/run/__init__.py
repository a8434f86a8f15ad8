"""Running steps: sampled (with an optional transcript), enumerated exactly, compiled."""
