"""FlexAttention enablement for PrivateUse1 devices (framework layer only: no lowering, no kernels).

Import the submodules explicitly; this package does no work at import time.
"""
