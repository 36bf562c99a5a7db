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
        ("", ("a", "b"), "a.b"),
        ("", (2, "x", "y z"), '[2].x["y z"]'),
        ("messages[1]", (), "messages[1]"),
    ],
)
def test_join_path(base: str, keys: tuple[str | int, ...], expected: str) -> None:
    assert join_path(base, *keys) == expected


def test_join_path_reads_the_same_past_its_remembered_steps() -> None:
    keys = [f"k{i}" if i % 2 else f"k {i}" for i in range(10_000)]
    first = [join_path("a", k) for k in keys]
    assert first == [join_path("a", k) for k in keys]
    assert first[:2] == ['a["k 0"]', "a.k1"]
