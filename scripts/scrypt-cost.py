#!/usr/bin/env python3
"""Time scrypt (r = 8, p = 1) at N = 2^14 … 2^20 on this machine, 3 runs each, with the
`cryptography` package (OpenSSL's scrypt; the keychain uses BoringSSL's through swift-crypto,
the same algorithm in C). Prints the memory each N needs (128·r·N bytes) and the run times in ms.
Used for the KDF figures in docs/FILE-FORMAT.md ("Key hierarchy")."""
import os
import time

from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

for log_n in range(14, 21):
    runs = []
    for _ in range(3):
        kdf = Scrypt(salt=os.urandom(32), length=32, n=1 << log_n, r=8, p=1)
        start = time.perf_counter()
        kdf.derive(b"calibration")
        runs.append((time.perf_counter() - start) * 1000)
    memory = 128 * 8 * (1 << log_n) // (1 << 20)
    print(f"N=2^{log_n}  {memory:5d} MiB  " + "  ".join(f"{run:7.1f}" for run in runs) + " ms")
