"""Leave the call's cgroups (voiding its pids and memory caps) by writing into another
cgroup's cgroup.procs, or by mounting a cgroup filesystem.

Stopped by: no /sys in the sandbox, no capabilities to mount, a cgroup namespace."""
import ctypes
import glob
import os

print("TRIED")
for procs in glob.glob("/sys/fs/cgroup/**/cgroup.procs", recursive=True):
    try:
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
        print(f"ESCAPED: moved into {procs}")
    except OSError:
        pass
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("mnt", exist_ok=True)
for fstype in (b"cgroup2", b"cgroup", b"sysfs", b"proc", b"tmpfs"):
    if libc.mount(b"none", b"mnt", fstype, 0, None) == 0:
        print(f"ESCAPED: mounted {fstype.decode()}")
