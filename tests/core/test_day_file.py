"""``<day>.json``: one module (core/day_file.py) writes it and checks it for its readers, so the report
cannot write a file the site or delivery would refuse."""

import json

import pytest

from vllm_digest.core import day_file
from vllm_digest.core.config.settings import RepoRef
from vllm_digest.core.vocabulary import SET_NAMES

REPO = RepoRef("octo", "widgets")


def a_doc(**changes) -> dict:
    doc = {
        "repo": REPO.full_name,
        "day": "2030-01-02",
        "window": {"start": "2030-01-01T16:00:00+00:00", "end": "2030-01-02T16:00:00+00:00", "timezone": "UTC"},
        "counts": {name: i for i, name in enumerate(SET_NAMES)},
        "headline": {"xx": "a title with <b> & </b>"},
    }
    return {**doc, **changes}


def test_a_written_file_is_one_its_readers_accept(tmp_path):
    path = tmp_path / "2030-01-02.json"
    text = day_file.dump(a_doc())
    # titles travel in the file: no raw markup character, so it stays inert pasted into HTML
    assert not {"<", ">", "&"} & set(text) and text.endswith("}\n")
    path.write_text(text, encoding="utf-8")
    doc = day_file.load(path, "2030-01-02", REPO, ValueError)
    assert doc == json.loads(json.dumps(a_doc()))
    assert day_file.counts(path, doc, ValueError) == a_doc()["counts"]
    assert day_file.headlines(path, doc, ValueError) == {"xx": "a title with <b> & </b>"}


@pytest.mark.parametrize("changes, message", [
    ({"counts": {**a_doc()["counts"], SET_NAMES[0]: -1}}, rf"counts\.{SET_NAMES[0]} is not a count \(found -1\)"),
    ({"window": {"start": "2030-01-01 16:00", "end": "2030-01-02T16:00:00+00:00"}},
     r"window\.start has no UTC offset \(found '2030-01-01 16:00'\)"),
    ({"headline": {"xx": 3}}, r"headline is not an object of language -> text"),
])
def test_the_writer_refuses_a_file_its_readers_would_refuse(changes, message):
    with pytest.raises(day_file.DayFileError, match=r"<day>\.json of octo/widgets 2030-01-02: " + message):
        day_file.dump(a_doc(**changes))
