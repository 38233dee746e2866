"""Fill the disk through the work directory, in many files so that no file-size limit bites.

Stopped by: the launcher watching the work directory's size (Limits.disk_mb)."""

LIMIT = "disk"
print("TRIED", flush=True)
block = b"x" * (1 << 20)
for i in range(1_000_000):
    with open(f"fill-{i}.bin", "wb") as f:
        for _ in range(8):
            f.write(block)
