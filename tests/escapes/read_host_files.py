"""Read host files the tool has no business reading: a private file of the kernel's user, the
home directory, other runs' samples, shadow passwords, SSH keys.

Stopped by: a mount namespace showing no home and no /work, and a uid of its own."""
import glob
import os

print("TRIED")
for path in [os.environ["HOST_FILE"], "/etc/shadow", "/root/.ssh/id_rsa", "/root/.bash_history",
             *glob.glob("/root/.*"), *glob.glob("/home/*/.*"),
             *glob.glob("/work/*/runs/*/samples.jsonl"),
             *glob.glob("/root/.cache/speckernel/**", recursive=True)[:50]]:
    try:
        with open(path, "rb") as f:
            if f.read(1) and path != "/root/.cache":
                print(f"ESCAPED: read {path}")
    except (IsADirectoryError, PermissionError, FileNotFoundError, OSError):
        pass
