"""A rebuild of the warehouse sends nothing again: the delivery log lives in the state store beside it
(``state.duckdb``), which a deleted warehouse does not take along, and an upgraded home's log is carried
over from its warehouse once. Real runs of the daily graph against the project's webhook receiver."""

from __future__ import annotations

import duckdb

from vllm_digest.testing.pipeline import materialize, settings_at
from vllm_digest.testing.webhook_receiver import WebhookReceiver

FIRST, LAST = "2026-03-21", "2026-03-22"


def _delete_warehouse(settings) -> None:
    for leftover in settings.home.glob("warehouse.duckdb*"):
        if leftover.is_file():
            leftover.unlink()


def _keys(rx: WebhookReceiver) -> list[tuple[str, str]]:
    return [(p["day"], r["headers"]["Idempotency-Key"]) for p, r in zip(rx.payloads(), rx.requests)]


def test_a_rebuilt_warehouse_sends_no_day_again(tmp_path):
    with WebhookReceiver() as rx:
        settings = settings_at(tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url())
        materialize(settings, FIRST, LAST)
        sent = _keys(rx)
        assert [day for day, _ in sent] == [FIRST, LAST]

        _delete_warehouse(settings)  # "rebuildable from raw": delete it, run the days again
        materialize(settings, FIRST, LAST)
        assert _keys(rx) == sent, "a rebuild of the warehouse sent delivered days again"
    assert settings.warehouse_path.exists() and settings.state_path.exists()


def test_an_upgraded_warehouses_log_is_carried_over_once(tmp_path):
    """A home from before the state store keeps its delivery log in the warehouse: the first run after the
    upgrade copies it into the state store, so neither that run nor a later rebuild sends a delivered day."""
    with WebhookReceiver() as rx:
        settings = settings_at(tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url())
        materialize(settings, FIRST, LAST)
        sent = _keys(rx)
        # the layout before the upgrade: the log in the warehouse, no state store
        with duckdb.connect(str(settings.warehouse_path)) as con:
            con.execute("ATTACH $p AS state (READ_ONLY)", {"p": str(settings.state_path)})
            con.execute("CREATE TABLE delivery_log AS SELECT * FROM state.delivery_log")
            con.execute("DETACH state")
        settings.state_path.unlink()

        materialize(settings, FIRST, LAST)
        assert _keys(rx) == sent, "the upgrade sent delivered days again"
        with duckdb.connect(str(settings.state_path), read_only=True) as con:
            assert con.execute("SELECT count(*) FROM delivery_log WHERE status = 'sent'").fetchone() == (2,)

        _delete_warehouse(settings)
        materialize(settings, FIRST, LAST)
        assert _keys(rx) == sent, "a rebuild after the upgrade sent delivered days again"
