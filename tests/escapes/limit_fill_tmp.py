"""Fill the machine's memory through /tmp (a tmpfs in the sandbox).

Stopped by: the tmpfs's own size, so writing fails; the call still ends."""

print("TRIED", flush=True)
block = b"x" * (1 << 20)
try:
    with open("/tmp/fill.bin", "wb") as f:
        for _ in range(4096):
            f.write(block)
    print("ESCAPED: wrote 4 GiB into /tmp")
except OSError:
    pass
