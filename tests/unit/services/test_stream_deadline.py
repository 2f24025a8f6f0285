"""A stream opened with an access token ends when the token expires."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import grpc
import pytest

from services.api.auth import StreamDeadline
from services.api.errors import ApiError
from services.sessions import SessionKey, Sessions


def test_a_seat_token_or_no_token_sets_no_deadline() -> None:
    sessions = Sessions(SessionKey.generate())
    for token in (None, "a-seat-token"):
        assert StreamDeadline(sessions, token).wait(20.0) == 20.0


def test_a_stream_waits_no_longer_than_its_token_lasts_then_ends() -> None:
    sessions = Sessions(SessionKey.generate(), lifetime=timedelta(seconds=1))
    token = sessions.issue(uuid.uuid4(), uuid.uuid4()).token
    deadline = StreamDeadline(sessions, token)
    assert 0 < deadline.wait(20.0) <= 1.0
    time.sleep(1.05)
    with pytest.raises(ApiError) as refused:
        deadline.wait(20.0)
    assert refused.value.status.code == grpc.StatusCode.UNAUTHENTICATED
