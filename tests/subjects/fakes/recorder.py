"""Notes every request it gets in a log file (one JSON line each: its pid and the request)
and answers with a body naming the scenario it used: the one sent, or for a short assemble
the one held. Arguments: the log's path, then any of

    --features NAME,...   declare these features (none by default)
    --crash-at N          exit with code 9 on the N-th assemble of each process
"""

import json
import os
import sys

from _fake import IMPLEMENTATION, assembled, send

log, options = sys.argv[1], sys.argv[2:]
features = options[options.index("--features") + 1].split(",") if "--features" in options else []
crash_at = int(options[options.index("--crash-at") + 1]) if "--crash-at" in options else 0
held = None
count = 0
for line in sys.stdin:
    request = json.loads(line)
    with open(log, "a", encoding="utf-8") as f:
        f.write(json.dumps({"pid": os.getpid(), "request": request}) + "\n")
    if request["cmd"] == "start":
        reply = {"ok": True, "version": 1, "implementation": IMPLEMENTATION}
        send(reply | {"features": features} if features else reply)
    elif request["cmd"] == "stop":
        break
    else:
        count += 1
        if count == crash_at:
            os._exit(9)
        if "scenario" in request:
            held = request["scenario"]
        elif held is None:
            send({"seq": request["seq"], "status": "errored", "message": "nothing held"})
            continue
        body = json.dumps({"messages": [{"role": "user", "content": held["id"]}]})
        send(assembled(request["seq"], body))
