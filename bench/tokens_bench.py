"""How far the characters-per-token estimate is from real token counts, on the fixture corpus.

Every fixture scenario is assembled by the reference in the OpenAI dialects; each request body
it would send (parent, children, follow-ups, next parent) is read into its rendered units, the
pieces the cache model counts (docs/cache-model.md). The units are counted twice: the
estimate the harness falls back on without the ``tokens`` extra (the model's characters per
token, each unit rounded up) and the real count in ``o200k_base`` and ``cl100k_base``. Prints,
per dialect and encoding, the bodies counted, the real characters per token, and the
estimate's relative error (estimate - real) / real: mean, mean of its magnitude, and the
worst with the body it comes from; then the time the tokenizer takes.

Figures, not assertions. Needs the extra: ``pip install -e '.[tokens]'``.

    python3 bench/tokens_bench.py
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.check import bundled_fixtures
from harness.dialects import ModelFacts, Unit, get_dialect
from harness.prefix import count_units, tokenizer
from harness.scenarios import load_fixtures
from harness.subjects import ReferenceSubject

ENCODINGS = ("o200k_base", "cl100k_base")
DIALECTS = ("openai", "openai-responses")


def bodies(dialect: str) -> list[tuple[str, tuple[Unit, ...], ModelFacts]]:
    """(label, rendered units, model facts) of every body the reference sends for the corpus
    in ``dialect``."""
    subject, d = ReferenceSubject(), get_dialect(dialect)
    out = []
    for scenario in load_fixtures(bundled_fixtures()):
        outcome = subject.assemble(scenario, dialect)
        sent = [("parent", outcome.parent), ("parent_next", outcome.parent_next)]
        sent += [(f"children[{i}]", body) for i, body in enumerate(outcome.children)]
        sent += [(f"follow_ups[{i}]", body) for i, body in enumerate(outcome.follow_ups)]
        for label, body in sent:
            if body is not None:
                view = d.parse(orjson.loads(body)).cache
                out.append((f"{scenario.id} {label}", view.units, view.model))
    return out


def main() -> int:
    if any(tokenizer(encoding) is None for encoding in ENCODINGS):
        print("the tokens extra is not installed: pip install -e '.[tokens]'", file=sys.stderr)
        return 2
    print("estimate: the model's characters per token, each unit rounded up")
    print(f"{'dialect':<17} {'encoding':<12} {'bodies':>6} {'chars/token':>11} "
          f"{'mean err':>9} {'mean |err|':>10} {'worst':>8}  worst body")  # fmt: skip
    counted_chars = 0
    spent = 0.0
    for dialect in DIALECTS:
        read = bodies(dialect)
        for encoding in ENCODINGS:
            errors, total_chars, total_tokens = [], 0, 0
            worst = (0.0, "")
            for label, units, model in read:
                start = time.perf_counter()
                real = count_units(units, replace(model, encoding=encoding))[0][-1]
                spent += time.perf_counter() - start
                estimate = count_units(units, replace(model, encoding=None))[0][-1]
                if not real:
                    continue
                error = (estimate - real) / real
                errors.append(error)
                total_chars += sum(len(u.data.decode("utf-8", "replace")) for u in units)
                total_tokens += real
                if abs(error) > abs(worst[0]):
                    worst = (error, label)
            counted_chars += total_chars
            print(
                f"{dialect:<17} {encoding:<12} {len(read):>6} "
                f"{total_chars / total_tokens:>11.2f} {statistics.mean(errors):>+9.1%} "
                f"{statistics.mean(abs(e) for e in errors):>10.1%} {worst[0]:>+8.1%}  {worst[1]}"
            )
    print(
        f"tokenizer: {counted_chars / 1e6:.2f} M characters counted in {spent:.2f} s"
        f" ({counted_chars / 1e6 / spent:.1f} M/s), both vocabularies loaded beforehand"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
