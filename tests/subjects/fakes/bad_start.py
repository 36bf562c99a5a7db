"""Fails the handshake in the way its argument names: exit, silent, garbage, version, refuse;
ansi exits after stderr lines full of terminal control sequences."""

import sys
import time

from _fake import IMPLEMENTATION, send

how = sys.argv[1]
sys.stdin.readline()
if how == "exit":
    sys.stderr.write("fake: cannot find my configuration\n")
    sys.exit(4)
elif how == "ansi":
    sys.stderr.write("fake: loading\n\x1b[2J\x1b]0;owned\x07fake: \x1b[31mno config\x1b[0m\r\n")
    sys.exit(5)
elif how == "silent":
    time.sleep(3600)
elif how == "garbage":
    print("Hello! I am a subject.", flush=True)
elif how == "version":
    send({"ok": True, "version": 2, "implementation": IMPLEMENTATION})
elif how == "refuse":
    send({"ok": False, "error": "this subject speaks version 2"})
sys.stdin.readline()
