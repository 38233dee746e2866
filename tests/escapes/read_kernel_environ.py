"""Read the kernel's environment (API keys) through /proc/<pid>/environ, and every process's.

Stopped by: a PID namespace with its own /proc (the kernel's pid names nothing or another
process), a uid of its own, and a kernel that is not dumpable."""
import os

print("TRIED")
secret = os.environ["SECRET_REVERSED"][::-1].encode()  # not in our own environment
candidates = [os.environ["KERNEL_PID"], *[p for p in os.listdir("/proc") if p.isdigit()]]
for pid in candidates:
    for name in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as f:
                if secret in f.read():
                    print(f"ESCAPED: secret in /proc/{pid}/{name}")
        except OSError:
            pass
with open("/proc/self/environ", "rb") as own:
    if secret in own.read():
        print("ESCAPED: secret in own environment")
