import os

# Every Ray server in the tests stays on 127.0.0.1 (DESIGN.md section 6); set before Ray is imported.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
