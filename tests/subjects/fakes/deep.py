"""Answers a "bad" scenario with bodies nested 500 levels deep in a tool's parameters,
past the JSON encoder's limit (254) yet within the protocol's reader."""

from _fake import run, send

DEPTH = 500


def deep(request: dict) -> None:
    nested = '{"a":' * DEPTH + "1" + "}" * DEPTH
    body = (
        '{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function",'
        '"function":{"name":"agent","parameters":' + nested + "}}]}"
    )
    send({"seq": request["seq"], "status": "assembled", "parent": body, "children": [body]})


run(deep)
