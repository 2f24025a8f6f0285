"""The operations settings, and a lone server's metrics endpoint."""

from __future__ import annotations

import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from infra.cli import build_parser
from infra.settings import Settings, SettingsError, address
from infra.telemetry import start_telemetry
from services.games import GamesApp


def test_metrics_and_log_format_come_from_the_environment() -> None:
    environ = {"TABLETOP_METRICS_LISTEN": "0.0.0.0:9464", "TABLETOP_LOG_FORMAT": "JSON"}
    settings = Settings.from_env(environ)
    assert (settings.metrics_listen, settings.log_format) == ("0.0.0.0:9464", "json")
    assert Settings.from_env({}).metrics_listen is None
    assert Settings.from_env({}).log_format == "text"


@pytest.mark.parametrize("value", ["9464", "host:", ":9464", "host:port", "h:70000"])
def test_a_metrics_address_that_is_not_host_and_port_is_refused(value: str) -> None:
    with pytest.raises(SettingsError):
        address(value)


def test_an_ipv6_metrics_address_is_accepted() -> None:
    assert address("[::]:9464") == "[::]:9464"


def test_an_unknown_log_format_is_refused() -> None:
    with pytest.raises(SettingsError):
        Settings.from_env({"TABLETOP_LOG_FORMAT": "xml"})
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--log-format", "xml"])


def test_the_serve_options_reach_the_parser() -> None:
    args = build_parser().parse_args(
        ["serve", "--metrics-listen", "127.0.0.1:0", "--log-format", "json"]
    )
    assert (args.metrics_listen, args.log_format) == ("127.0.0.1:0", "json")


def test_without_settings_no_call_is_observed() -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    telemetry = start_telemetry(Settings(), app)
    assert telemetry.observers == []
    assert telemetry.metrics_address is None
    app.close()


def test_a_lone_server_serves_its_store_figures_until_it_stops() -> None:
    app = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    telemetry = start_telemetry(Settings(metrics_listen="127.0.0.1:0"), app)
    try:
        url = f"http://{telemetry.metrics_address}/metrics"
        with urllib.request.urlopen(url, timeout=5) as reply:
            text = reply.read().decode()
    finally:
        telemetry.stop()
        app.close()
    names = {family.name for family in text_string_to_metric_families(text)}
    assert {"tabletop_commit_transactions", "tabletop_open_streams"} <= names
    assert "tabletop_db_pool_size" not in names  # not on PostgreSQL
    second = GamesApp({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    again = start_telemetry(Settings(metrics_listen="127.0.0.1:0"), second)
    again.stop()  # the first one's collector was unregistered
    second.close()
