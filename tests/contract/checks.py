"""Small assertions the contract's tests share."""

from __future__ import annotations

import re

from domain.common.decision import Rejected, RejectionKind

REASON = re.compile(r"[A-Z][A-Z0-9_]{0,62}")
RULE = re.compile(r"[a-z][a-z0-9_]*/[a-z][a-z0-9_]*")


def check_refusal(decision: object) -> Rejected:
    """Asserts a refusal that says why: a stable reason, a rule and a message."""
    assert isinstance(decision, Rejected), decision
    assert REASON.fullmatch(decision.reason), decision
    assert RULE.fullmatch(decision.rule), decision
    assert decision.message, decision
    assert isinstance(decision.kind, RejectionKind), decision
    return decision
