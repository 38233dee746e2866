"""Raise its own resource limits above what the sandbox set, and lift its scheduling and OOM
priority.

Stopped by: no CAP_SYS_RESOURCE / CAP_SYS_NICE in any namespace that matters."""
import os
import resource

print("TRIED")
for name in ("RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CPU", "RLIMIT_CORE"):
    limit = getattr(resource, name)
    soft, hard = resource.getrlimit(limit)
    if hard == resource.RLIM_INFINITY:
        continue
    try:
        resource.setrlimit(limit, (hard + 1000, hard + 1000))
        print(f"ESCAPED: raised {name}")
    except (ValueError, OSError):
        pass
try:
    os.nice(-10)
    print("ESCAPED: raised its priority")
except OSError:
    pass
try:
    with open("/proc/self/oom_score_adj", "w") as f:
        f.write("-1000")
    with open("/proc/self/oom_score_adj") as f:
        if f.read().strip() == "-1000":
            print("ESCAPED: exempted itself from the OOM killer")
except OSError:
    pass
