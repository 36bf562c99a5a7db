"""Fails the handshake in the way its argument names: exit, silent, garbage, version, refuse."""

import sys
import time

from _fake import IMPLEMENTATION, send

how = sys.argv[1]
sys.stdin.readline()
if how == "exit":
    sys.stderr.write("fake: cannot find my configuration\n")
    sys.exit(4)
elif how == "silent":
    time.sleep(3600)
elif how == "garbage":
    print("Hello! I am a subject.", flush=True)
elif how == "version":
    send({"ok": True, "version": 2, "implementation": IMPLEMENTATION})
elif how == "refuse":
    send({"ok": False, "error": "this subject speaks version 2"})
sys.stdin.readline()
