"""The Responses rendered prefix: an item's id and status drop out, its phase stays."""

from __future__ import annotations

from typing import Any

from harness.dialects.openai_responses._units import units as responses_units


def data(units: Any) -> list[tuple[str, bytes]]:
    return [(u.name, u.data) for u in units]


def test_responses_items_ids_and_status_do_not_count_phase_does() -> None:
    item = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "hi"}],
    }
    a = data(responses_units({"input": [item]}))
    b = data(responses_units({"input": [{**item, "id": "msg_1", "status": "completed"}]}))
    assert a == b
    assert a != data(responses_units({"input": [{**item, "phase": "final_answer"}]}))
