"""Leave a process behind that outlives the call: double fork, setsid, a new session, ignoring
SIGHUP and SIGTERM.

Stopped by: the PID namespace (its init dies with the call, and every process in it) and the
cgroup kill. The test checks from the host that nothing with this file's marker is left."""
import os
import signal
import subprocess

print("TRIED", flush=True)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
subprocess.Popen(["setsid", "sleep", "77.7317"], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "77.7317"])
    os._exit(0)
