"""The shared vocabulary (vllm_digest/core/vocabulary.py) is the one definition: the SQL that names a set,
a payload kind or a manifest field agrees with it, and the manifest reads back as it was written."""

import re

import pytest

from vllm_digest.core.sqlmodel.files import read_sql
from vllm_digest.core.sqlmodel.run_days import RUN_DAYS_COLUMNS
from vllm_digest.core.sqlmodel.schema import columns_of
from vllm_digest.core.vocabulary import PAYLOAD_KINDS, SET_NAMES, Manifest
from vllm_digest.warehouse.layers import STG_MODELS


TYPED = set(Manifest.__dataclass_fields__) - {"details"}


def test_each_payload_kind_is_staged_by_one_stg_model():
    read_by = {kind: [m for m in STG_MODELS if f"${kind}_paths" in read_sql(m)] for kind in PAYLOAD_KINDS}
    assert all(len(models) == 1 for models in read_by.values()), read_by
    paths = {p for m in STG_MODELS for p in re.findall(r"\$(\w+)_paths\b", read_sql(m))}
    assert paths == {*PAYLOAD_KINDS, "manifest"}
    assert {name for name, _ in RUN_DAYS_COLUMNS if name.endswith("_path")} == {f"{p}_path" for p in paths}


def test_stg_fetch_manifest_reads_only_the_manifest_fields():
    sql = read_sql("stg_fetch_manifest")
    read = set(re.findall(r"(\w+): '", sql.split("columns = {", 1)[1]))
    assert read and read <= TYPED, read - TYPED


def test_the_five_sets_are_the_daily_counts_columns_and_the_five_sets_names():
    counts = [name for name, _ in columns_of("mart_daily_counts")]
    assert tuple(c for c in counts if c in SET_NAMES) == SET_NAMES
    five_sets = read_sql("mart_five_sets")
    assert set(re.findall(r"'(new_\w+|closed_\w+|merged_\w+)'", five_sets)) == set(SET_NAMES)


def test_a_manifest_reads_back_as_written_with_its_details_beside_the_typed_fields():
    manifest = Manifest(
        source="sample", repo="o/r", day="2026-05-04", window_start="2026-05-04T00:00:00+00:00",
        window_end="2026-05-05T00:00:00+00:00", semantics="events", complete=False,
        incomplete_reasons=["outside coverage"], details={"replay": {"u": {"etag": "x"}}},
    )
    as_json = manifest.to_json()
    assert as_json["replay"] == {"u": {"etag": "x"}} and as_json["complete"] is False and "details" not in as_json
    assert Manifest.from_json(as_json, "here.json") == manifest


@pytest.mark.parametrize("data", [{"source": "sample"}, ["not", "an", "object"]])
def test_a_manifest_missing_its_fields_names_the_file(data):
    with pytest.raises(ValueError, match="manifest 'raw/o/r/2026-05-04/manifest.json' lacks"):
        Manifest.from_json(data, "raw/o/r/2026-05-04/manifest.json")
