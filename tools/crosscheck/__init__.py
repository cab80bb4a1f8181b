"""The cross-check: upstream's benchmarks/dynamo and Parity, run one after the other on one device, side by side."""
