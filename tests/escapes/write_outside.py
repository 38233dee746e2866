"""Write anywhere but the work directory: the host directory given, system directories, the
home, the tools and Python directories, /tmp, /dev/shm, /proc/sys, and the launcher itself.

Stopped by: a mount namespace in which only the work directory is writable (the rest read-only,
absent, or private to the sandbox, like its /tmp) and a uid that owns nothing. The test looks
for the file, named by MARKER, in the host's directories."""
import os
import sys
import sysconfig

print("TRIED")
marker = os.environ["MARKER"]
targets = [os.environ["CANARY_DIR"], "/", "/etc", "/usr", "/usr/local/bin", "/opt", "/root",
           "/home", "/tmp", "/var/tmp", "/dev/shm", os.path.dirname(sys.executable),
           sysconfig.get_paths()["purelib"], os.path.dirname(os.path.dirname(os.getcwd()))]
for folder in targets:
    try:
        with open(os.path.join(folder, marker), "w") as f:
            f.write("pwned")
    except OSError:
        pass
for path in ("/proc/sys/kernel/hostname", "/proc/sysrq-trigger"):
    try:
        with open(path, "w") as f:
            f.write("x")
        print(f"ESCAPED: wrote {path}")
    except OSError:
        pass
