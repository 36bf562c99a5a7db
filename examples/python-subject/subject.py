"""A protocol subject in Python: the bundled reference implementation served over JSON lines.

    prefix-harness check --subject "cmd:python3 examples/python-subject/subject.py"

To put your own Python implementation behind the protocol (to run it out of process, or
under another interpreter), serve any object with ``name``, ``dialects``, ``lifecycles`` and
``assemble(scenario, dialect) -> Outcome`` instead of ``ReferenceSubject()``. ``serve``
declares the protocol feature ``same-scenario``: a scenario sent in several dialects one
after the other is read once. See docs/protocol.md for the messages.
"""

import sys

from harness import ReferenceSubject, serve

if __name__ == "__main__":
    sys.exit(serve(ReferenceSubject(), version="0.1.0"))
