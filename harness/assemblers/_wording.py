"""Every sentence the reference puts into a request, in one place (docs/protocol.md#lifecycles).

Subjects word their boilerplate, placeholders and guidance differently; passing another
``Wording`` to the assemblers describes such a subject without touching their logic. The
defaults are the reference's own text, written for this project.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import orjson

__all__ = ["DEFAULT_WORDING", "PARENT_ID", "Wording"]

PARENT_ID = "{parent_id}"
"""Where ``Wording.guidance`` takes the JSON-encoded id of the child's direct parent."""


@dataclass(frozen=True, slots=True)
class Wording:
    """The text of the reference's requests; assemblers take it as ``wording=``."""

    boilerplate_tag: str = "fork-boilerplate"
    """The tag around the worker rules; finding its opening form marks a fork child."""
    worker_rules: tuple[str, ...] = (
        "You are a forked worker. The conversation above belongs to the agent that started "
        "you; it is shared context, and the directive below is your only assignment.",
        "Do not start forks of your own: a worker that tries is refused.",
        "Stay within the directive. Ask no questions; where something is unclear, state the "
        "assumption you make and carry on.",
        "Finish with a short report of what you did and what you found. The report is your "
        "whole answer to the agent that started you.",
    )
    directive_label: str = "Directive: "
    placeholder: str = "Placeholder result: this call is not part of the forked worker's task."
    """The response given to each open call of the parent's last message inside a fork."""
    acknowledgement: str = "Understood. Starting on the directive now."
    begin: str = "Begin."
    background_started: str = (
        "A forked worker is running this directive in the background; its report will be "
        "delivered to you when it finishes."
    )
    """The tool result the parent receives for its fork call, at once."""
    fallback_system: str = (
        "You are a worker agent started to carry out one directive. Use the tools you have, "
        "stay within the directive, and end with a brief report of what you found."
    )
    """The system prompt of a fork made without cache-safe parameters (degraded)."""
    recursion_error: str = (
        "Fork refused: this agent is itself a forked worker, and forked workers cannot start "
        "forks. Carry out the work directly instead."
    )
    guidance: str = (
        "Your direct parent is the agent with id {parent_id}. When you have a result, send it "
        'there with send_message({"agent_id": {parent_id}, "message": "<your result>"}).'
    )
    """Return guidance appended to a continuable child's task; ``{parent_id}`` is replaced."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, str) and f.name != "directive_label" and not value.strip():
                raise ValueError(f"Wording.{f.name} must not be empty")
        if not self.worker_rules or not all(rule.strip() for rule in self.worker_rules):
            raise ValueError("Wording.worker_rules needs at least one rule, none of them empty")
        if any(c in self.boilerplate_tag for c in "<>/ \n"):
            raise ValueError(f"Wording.boilerplate_tag {self.boilerplate_tag!r} is a bare tag name")
        if PARENT_ID not in self.guidance:
            raise ValueError(f"Wording.guidance must contain {PARENT_ID} for the parent id")

    @property
    def open_tag(self) -> str:
        return f"<{self.boilerplate_tag}>"

    @property
    def close_tag(self) -> str:
        return f"</{self.boilerplate_tag}>"

    def child_message(self, directive: str) -> str:
        """The fork child's message: the boilerplate block of worker rules, then the directive.

        Everything before the directive is the same for every directive, which is what lets
        sibling forks share their bytes up to it.
        """
        rules = "\n".join(self.worker_rules)
        return f"{self.open_tag}\n{rules}\n{self.close_tag}\n\n{self.directive_label}{directive}"

    def guidance_for(self, parent_id: str) -> str:
        """The return guidance naming ``parent_id`` JSON-encoded (quoted and escaped)."""
        return self.guidance.replace(PARENT_ID, orjson.dumps(parent_id).decode())


DEFAULT_WORDING = Wording()
