"""Attach to the kernel with ptrace, to read its memory.

Stopped by: the kernel's pid not existing in the tool's PID namespace, another uid, no
CAP_SYS_PTRACE, a non-dumpable kernel."""
import ctypes
import os

print("TRIED")
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH, PTRACE_SEIZE = 16, 0x4206
for pid in (int(os.environ["KERNEL_PID"]),):
    for request in (PTRACE_ATTACH, PTRACE_SEIZE):
        if libc.ptrace(request, pid, None, None) == 0:
            print(f"ESCAPED: ptrace request {request} on pid {pid}")
    try:
        with open(f"/proc/{pid}/mem", "rb") as mem:
            mem.read(1)
        print(f"ESCAPED: opened /proc/{pid}/mem")
    except OSError:
        pass
