"""A fork bomb: processes without end.

Stopped by: the pids cgroup (and RLIMIT_NPROC of the call's own uid); the tree is killed at the
wall budget at the latest, and nothing survives the call."""
import os
import time

LIMIT = "processes|wall"
print("TRIED", flush=True)
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.01)
