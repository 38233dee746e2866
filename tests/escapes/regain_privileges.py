"""Regain privileges: a setuid program (mount, su, passwd), a nested user namespace to get
capabilities back, new capabilities through file capabilities, signalling the kernel.

Stopped by: no_new_privs (setuid bits ignored), nested user namespaces disabled, an empty
bounding set, host pids not visible."""
import ctypes
import os
import signal
import subprocess

print("TRIED")
if os.getuid() == 0 or os.geteuid() == 0:
    print("ESCAPED: runs as root")
with open("/proc/self/status") as f:
    status = f.read()
for line in status.splitlines():
    if line.startswith(("CapEff", "CapPrm", "CapBnd", "CapAmb")) and not line.endswith("0" * 16):
        print(f"ESCAPED: holds capabilities ({line})")
    if line.startswith("NoNewPrivs") and not line.endswith("1"):
        print("ESCAPED: no_new_privs is not set")
for argv in (["mount", "-t", "tmpfs", "none", "/mnt"], ["su", "-c", "id"],
             ["unshare", "-U", "-r", "id", "-u"], ["unshare", "-n", "true"]):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        continue
    if done.returncode == 0 and argv[0] != "unshare":
        print(f"ESCAPED: {' '.join(argv)} succeeded")
    if argv[:2] == ["unshare", "-U"] and done.returncode == 0:
        print("ESCAPED: made a nested user namespace")
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000) == 0:  # CLONE_NEWUSER
    print("ESCAPED: unshare(CLONE_NEWUSER) worked")
try:
    os.kill(int(os.environ["KERNEL_PID"]), signal.SIGSTOP)
    print("ESCAPED: could signal the kernel's pid")
except (ProcessLookupError, PermissionError):
    pass
