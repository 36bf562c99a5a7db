import orjson
import pytest

from harness.assemblers import DEFAULT_WORDING, PARENT_ID, Wording


def test_child_message_is_boilerplate_block_then_directive() -> None:
    text = DEFAULT_WORDING.child_message("Count the tests")
    rules = "\n".join(DEFAULT_WORDING.worker_rules)
    assert text == f"<fork-boilerplate>\n{rules}\n</fork-boilerplate>\n\nDirective: Count the tests"


def test_child_messages_share_everything_before_the_directive() -> None:
    a = DEFAULT_WORDING.child_message("Research A")
    b = DEFAULT_WORDING.child_message("Modify B")
    assert a.removesuffix("Research A") == b.removesuffix("Modify B")


def test_other_wording_changes_tags_and_label() -> None:
    wording = Wording(boilerplate_tag="worker", directive_label="Task: ", worker_rules=("Work.",))
    assert wording.open_tag == "<worker>"
    assert wording.close_tag == "</worker>"
    assert wording.child_message("x") == "<worker>\nWork.\n</worker>\n\nTask: x"


def test_guidance_names_the_parent_id_json_encoded() -> None:
    text = DEFAULT_WORDING.guidance_for('agent "7"')
    encoded = orjson.dumps('agent "7"').decode()
    assert encoded in text
    assert f'send_message({{"agent_id": {encoded}, ' in text
    assert PARENT_ID not in text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"placeholder": " "}, "Wording.placeholder must not be empty"),
        ({"begin": ""}, "Wording.begin must not be empty"),
        ({"worker_rules": ()}, "at least one rule"),
        ({"worker_rules": ("ok", "")}, "at least one rule"),
        ({"boilerplate_tag": "<fork>"}, "bare tag name"),
        ({"guidance": "Report to your parent."}, "{parent_id}"),
    ],
)
def test_invalid_wording_is_refused(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")):
        Wording(**change)  # type: ignore[arg-type]


def test_default_wording_is_frozen() -> None:
    with pytest.raises(AttributeError):
        DEFAULT_WORDING.begin = "Go."  # type: ignore[misc]
