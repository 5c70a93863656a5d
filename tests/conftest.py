import os

# Every Ray server in the tests stays on 127.0.0.1 (Ray 2.x binds to all interfaces otherwise); set before Ray is imported.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
