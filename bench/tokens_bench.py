"""How far the ~4 bytes/token estimate is from real token counts, on the fixture corpus.

Every fixture scenario is assembled by the reference in the OpenAI dialects; each request body
it would send (parent, children, follow-ups, next parent) is turned into its prefix stream,
the bytes a finding's cost is measured in. The stream is counted twice: the estimate
(``BYTES_PER_TOKEN`` bytes a token, rounded up) and the real count in ``o200k_base`` and
``cl100k_base`` (the ``tokens`` extra, ``harness.rules._tokens``). Prints, per dialect and
encoding, the bodies counted, the real bytes per token, and the estimate's relative error
(estimate - real) / real: mean, mean of its magnitude, and the worst (largest magnitude) with
the body it comes from; then the time the tokenizer takes.

Figures, not assertions. Needs the extra: ``pip install -e '.[tokens]'``.

    python3 bench/tokens_bench.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.check import bundled_fixtures
from harness.dialects import all_dialects, get_dialect
from harness.prefix import prefix_stream
from harness.rules import BYTES_PER_TOKEN
from harness.rules import _tokens as tokens
from harness.scenarios import load_fixtures
from harness.subjects import ReferenceSubject

ENCODINGS = {"o200k_base": "gpt-4o", "cl100k_base": "gpt-4"}
"""Each encoding, by a model that uses it."""


def bodies(dialect: str) -> list[tuple[str, bytes]]:
    """(label, prefix stream) of every body the reference sends for the corpus in ``dialect``."""
    subject, d = ReferenceSubject(), get_dialect(dialect)
    out = []
    for scenario in load_fixtures(bundled_fixtures()):
        outcome = subject.assemble(scenario, dialect)
        sent = [("parent", outcome.parent), ("parent_next", outcome.parent_next)]
        sent += [(f"children[{i}]", body) for i, body in enumerate(outcome.children)]
        sent += [(f"follow_ups[{i}]", body) for i, body in enumerate(outcome.follow_ups)]
        for label, body in sent:
            if body is not None:
                stream = prefix_stream(d.parse(orjson.loads(body)))
                out.append((f"{scenario.id} {label}", bytes(stream)))
    return out


def main() -> int:
    if not tokens.tokenizer_available():
        print("the tokens extra is not installed: pip install -e '.[tokens]'", file=sys.stderr)
        return 2
    for model in ENCODINGS.values():  # load each vocabulary before anything is timed
        tokens.count(b"", "openai", model)
    print(f"estimate: ~{BYTES_PER_TOKEN} bytes of prefix stream per token, rounded up")
    print(f"{'dialect':<17} {'encoding':<12} {'bodies':>6} {'bytes/token':>11} "
          f"{'mean err':>9} {'mean |err|':>10} {'worst':>8}  worst body")  # fmt: skip
    counted_bytes = 0
    spent = 0.0
    counted = [n for n, d in all_dialects().items() if d.facts.tokenizer == tokens.TOKENIZER]
    for dialect in counted:
        streams = bodies(dialect)
        for encoding, model in ENCODINGS.items():
            errors, total_bytes, total_tokens = [], 0, 0
            worst = (0.0, "")
            for label, data in streams:
                start = time.perf_counter()
                found = tokens.count(data, dialect, model)
                spent += time.perf_counter() - start
                assert found is not None
                assert found[1] == encoding
                real = found[0]
                estimate = -(-len(data) // BYTES_PER_TOKEN)
                error = (estimate - real) / real
                errors.append(error)
                total_bytes += len(data)
                total_tokens += real
                if abs(error) > abs(worst[0]):
                    worst = (error, label)
            counted_bytes += total_bytes
            print(
                f"{dialect:<17} {encoding:<12} {len(streams):>6} "
                f"{total_bytes / total_tokens:>11.2f} {statistics.mean(errors):>+9.1%} "
                f"{statistics.mean(abs(e) for e in errors):>10.1%} {worst[0]:>+8.1%}  {worst[1]}"
            )
    print(
        f"tokenizer: {counted_bytes / 1e6:.2f} MB counted in {spent:.2f} s "
        f"({counted_bytes / 1e6 / spent:.1f} MB/s), both vocabularies loaded beforehand"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
