import pytest

from harness.model import join_path


@pytest.mark.parametrize(
    ("base", "keys", "expected"),
    [
        (
            "tools[3]",
            ("parameters", "properties", "path", "description"),
            "tools[3].parameters.properties.path.description",
        ),
        ("messages[7]", ("content", 0, "text"), "messages[7].content[0].text"),
        ("tools[0]", ("properties", "a b"), 'tools[0].properties["a b"]'),
        ("x", ('quote"d',), 'x["quote\\"d"]'),
        ("", ("system",), "system"),
        ("", (2,), "[2]"),
    ],
)
def test_join_path(base: str, keys: tuple[str | int, ...], expected: str) -> None:
    assert join_path(base, *keys) == expected
