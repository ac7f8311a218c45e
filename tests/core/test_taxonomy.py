"""The taxonomy file: loading, validation messages, and that editing it changes the marts."""

from __future__ import annotations

import re

import pytest

from tests.analytics.test_analytics import REPO, SEED_DAY, base_warehouse, windows
from vllm_digest.analytics.build import build_analytics, build_taxonomy_rules
from vllm_digest.core.config.settings import load_settings
from vllm_digest.core.taxonomy.loader import DEFAULT_TAXONOMY, TaxonomyError, keyword_regex, load_taxonomy, taxonomy_from_settings

REQUIRED = {
    "tool_calling", "structured_output", "spec_decode", "kv_cache_scheduling", "memory_oom", "quantization",
    "moe_kernels", "attention", "distributed", "multimodal", "lora", "hw_amd", "hw_nvidia", "hw_intel", "hw_tpu",
    "hw_cpu", "hw_other", "accuracy_numerics", "performance", "frontend_api", "engine_core", "ci_build_tests", "docs",
}


def test_default_taxonomy_covers_the_required_topics():
    tax = load_taxonomy()
    ids = [t.id for t in tax.topics]
    assert tax.version >= 1 and len(ids) == len(set(ids))
    assert REQUIRED <= set(ids)
    assert any(t.group == "model" for t in tax.topics)
    amd = tax.focus_areas[0]
    assert (amd.id, amd.rules.labels, amd.authors) == ("amd", ("rocm",), ("-amd",))
    assert [t.id for t in amd.themes] == ["ci", "tests_stability", "perf_features"]


@pytest.mark.parametrize("keyword, text, hit", [
    ("tool call", "Fix GLM tool-call finish chunk", True),
    ("tool call", "deepseekv3.2 tool_calls failure", False),   # plural is its own keyword
    ("tool calls", "deepseekv3.2 tool_calls failure", True),
    ("oom", "Share MLA decode output buffer to fix OOM", True),
    ("oom", "zoom in on the room", False),                      # word boundaries
    ("qwen3.5", "Qwen3.5 FP8 on Blackwell", True),
    ("qwen3.5", "Qwen3x5", False),                              # the dot is literal
])
def test_keywords_match_on_word_boundaries_case_insensitively(keyword, text, hit):
    assert bool(re.search("(?i)" + keyword_regex(keyword), text)) is hit


def test_settings_point_at_another_file(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('version = 3\n[[topic]]\nid = "x"\nzh = "甲"\nen = "X"\nkeywords = ["x"]\n', encoding="utf-8")
    settings = load_settings({"VLLM_DIGEST_HOME": str(tmp_path), "VLLM_DIGEST_TAXONOMY": str(path)})
    tax = taxonomy_from_settings(settings)
    assert (tax.version, [t.id for t in tax.topics], tax.path) == (3, ["x"], path.resolve())
    assert taxonomy_from_settings(load_settings({"VLLM_DIGEST_HOME": str(tmp_path)})).path == DEFAULT_TAXONOMY.resolve()


TOPIC = 'version = 1\n[[topic]]\nid = "a"\nzh = "甲"\nen = "A"\nkeywords = ["a"]\n'


@pytest.mark.parametrize("text, topic, reason", [
    (TOPIC + '[[topic]]\nid = "b"\nzh = "乙"\nen = "B"\npatterns = ["(unclosed"]\n',
     "topic 'b'", "is not a valid regular expression"),
    (TOPIC + '[[topic]]\nid = "b"\nzh = "乙"\nen = "B"\npatterns = ["(?<=x)y"]\n',
     "topic 'b'", "is not accepted by RE2"),
    (TOPIC + '[[topic]]\nid = "b"\nzh = "乙"\nen = "B"\nkeywords = ["b"]\ncolour = "red"\n',
     "topic 'b'", "unknown key(s) ['colour']"),
    (TOPIC + '[[topic]]\nid = "a"\nzh = "乙"\nen = "B"\nkeywords = ["b"]\n',
     "topic 'a'", "duplicate id 'a'"),
    (TOPIC + '[[topic]]\nid = "b"\nzh = "乙"\nen = "B"\n', "topic 'b'", "has no rules"),
    (TOPIC + '[[topic]]\nid = "b"\nen = "B"\nkeywords = ["b"]\n', "topic 'b'", "'zh' is required"),
    (TOPIC + '[[topic]]\nid = "b"\nzh = "乙"\nen = "B"\ngroup = "misc"\nkeywords = ["b"]\n', "topic 'b'", "group 'misc'"),
    (TOPIC + '[[topic]]\nid = "b"\nzh = "乙"\nen = "B"\ngeneric = "yes"\nkeywords = ["b"]\n', "topic 'b'",
     "'generic' must be true or false"),
    (TOPIC + "[topic_rank]\nnoise_z = -1\n", "[topic_rank]", "noise_z must be a number >= 0, got -1"),
    (TOPIC + "[topic_rank]\nnoise = 2\n", "[topic_rank]", "unknown key(s) ['noise']"),
    (TOPIC + '[topic_rank]\nminor_tags = ["ci", ""]\n', "[topic_rank]", "'minor_tags' must be a list of non-empty strings"),
    (TOPIC.replace("version = 1\n", ""), "", "'version' is required"),
    (TOPIC + "colour = 1\n", "topic 'a'", "unknown key(s) ['colour']"),
    ("version = 1\ntopic = [\n", "", "not valid TOML"),
    (TOPIC + '[[focus]]\nid = "f"\nzh = "丙"\nen = "F"\nvendor = "V"\nauthors = ["[bad"]\n',
     "focus area 'f'", "is not a valid regular expression"),
    (TOPIC + '[[focus]]\nid = "f"\nzh = "丙"\nen = "F"\nvendor = "V"\nlabels = ["x"]\n'
             '[[focus.theme]]\nid = "t"\nzh = "丁"\nen = "T"\n', "focus area 'f', theme 't'", "not the default theme"),
    (TOPIC + '[project]\nname = "P"\nrepos = ["just-a-name"]\n', "[project]", "repo 'just-a-name' is not of the form owner/name"),
    (TOPIC + '[project]\nrepos = ["o/r"]\n', "[project]", "'name' is required"),
    (TOPIC + '[[focus]]\nid = "f"\nzh = "丙"\nen = "F"\nvendor = "V"\nhighlight = ""\nlabels = ["x"]\n',
     "focus area 'f'", "'highlight' is required and must be a non-empty string"),
    # the sections' cuts and look-backs: whole counts, days at least 1, weights >= 0, shares at most 1
    (TOPIC + "[selection]\nhot_limit = -1\n", "[selection]", "hot_limit must be a whole number >= 0, got -1"),
    (TOPIC + "[selection]\nhot_limit = 2.5\n", "[selection]", "hot_limit must be a whole number >= 0, got 2.5"),
    (TOPIC + "[selection]\ndiscussion_min_people = true\n", "[selection]",
     "discussion_min_people must be a whole number >= 0, got True"),
    (TOPIC + "[selection]\nhot_limits = 4\n", "[selection]", "unknown key(s) ['hot_limits']"),
    (TOPIC + "[stories]\nstory_history_days = 0\n", "[stories]", "story_history_days must be a whole number >= 1, got 0"),
    (TOPIC + "[stories]\nstory_vocab_share = 1.5\n", "[stories]",
     "story_vocab_share must be a share above 0 and at most 1, got 1.5"),
    (TOPIC + '[stories]\nstory_size_weight = "big"\n', "[stories]", "story_size_weight must be a number >= 0, got 'big'"),
    (TOPIC + "[follow_ups]\nfollow_up_days = 0\n", "[follow_ups]", "follow_up_days must be a whole number >= 1, got 0"),
    (TOPIC.replace("version = 1\n", "version = 1\nfollow_ups = 3\n"), "[follow_ups]", "must be a table"),
])
def test_malformed_taxonomy_names_file_topic_and_reason(tmp_path, text, topic, reason):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TaxonomyError) as err:
        load_taxonomy(path)
    message = str(err.value)
    assert str(path) in message and topic in message and reason in message, message


def test_the_sections_cuts_are_the_taxonomys_and_default_to_the_packaged_values(tmp_path):
    """[selection], [stories] and [follow_ups] are the one home of what the sections list and how far back they
    look: a taxonomy that sets none of them gets the packaged file's values, and one that sets a value gets it
    back by the name the marts bind, in the type of its default (a count stays whole, a weight a float)."""
    packaged = load_taxonomy().picks
    bare = tmp_path / "bare.toml"
    bare.write_text(TOPIC, encoding="utf-8")
    assert load_taxonomy(bare).picks == packaged
    assert packaged["hot_limit"] == 3 and packaged["follow_up_days"] == 14 and packaged["story_vocab_share"] == 0.95
    tuned = tmp_path / "tuned.toml"
    tuned.write_text(TOPIC.replace("version = 1\n", "version = 1\n[selection]\nhot_limit = 5\n"
                                   "[stories]\nstory_size_weight = 2\n"), encoding="utf-8")
    taxonomy = load_taxonomy(tuned)
    assert taxonomy.picks == {**packaged, "hot_limit": 5, "story_size_weight": 2.0}
    assert isinstance(taxonomy.picks["story_size_weight"], float)
    params = taxonomy.params()
    assert params["hot_limit"] == 5 and params["follow_ups_shown"] == packaged["follow_ups_shown"]
    # a changed cut is a changed rule set: the marts built with it show a new code version
    assert taxonomy.fingerprint != load_taxonomy(bare).fingerprint


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(TaxonomyError, match="does not exist"):
        load_taxonomy(tmp_path / "nope.toml")


def test_adding_a_topic_changes_the_marts_without_code(tmp_path):
    con = base_warehouse(tmp_path, [SEED_DAY])
    _, ws = windows(tmp_path, [SEED_DAY])
    try:
        build_taxonomy_rules(con, REPO, ws, load_taxonomy())
        build_analytics(con, REPO, ws, load_taxonomy())
        assert con.execute("SELECT count(*) FROM mart_item_topics WHERE topic_id = 'dllm'").fetchone()[0] == 0

        edited = tmp_path / "edited.toml"
        # a version the bundled taxonomy will not reach, whatever it is now
        text = re.sub(r"(?m)^version = \d+$", "version = 99", DEFAULT_TAXONOMY.read_text(encoding="utf-8"), count=1)
        text += '\n[[topic]]\nid = "dllm"\nzh = "扩散语言模型"\nen = "Diffusion LLMs"\nkeywords = ["dllm", "diffusion"]\n'
        edited.write_text(text, encoding="utf-8")
        build_taxonomy_rules(con, REPO, ws, load_taxonomy(edited))
        build_analytics(con, REPO, ws, load_taxonomy(edited))

        assert con.execute(
            "SELECT number, matched_rule, taxonomy_version FROM mart_item_topics WHERE topic_id = 'dllm'"
        ).fetchall() == [(36155, 'title:"dLLM"', 99)]
        assert con.execute(
            "SELECT items, trend_status FROM mart_topic_daily WHERE topic_id = 'dllm'").fetchone() == (1, "baseline incomplete")
        assert con.execute("SELECT DISTINCT taxonomy_version FROM ref_taxonomy_rules").fetchall() == [(99,)]
    finally:
        con.close()


def test_the_fingerprint_follows_the_rules_not_the_path(tmp_path):
    """The rules asset's code version: a copy elsewhere is the same version, an edited rule is not,
    and the definitions carry it on ref_taxonomy_rules so the UI marks a changed taxonomy."""
    from vllm_digest.definitions import build_definitions

    base = load_taxonomy()
    copy = tmp_path / "copy.toml"
    copy.write_text(DEFAULT_TAXONOMY.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_taxonomy(copy).fingerprint == base.fingerprint
    edited = tmp_path / "edited.toml"
    edited.write_text(DEFAULT_TAXONOMY.read_text(encoding="utf-8")
                      + '\n[[topic]]\nid = "dllm"\nzh = "扩散"\nen = "Diffusion"\nkeywords = ["dllm"]\n', encoding="utf-8")
    assert load_taxonomy(edited).fingerprint != base.fingerprint

    config = tmp_path / "vllm_digest.toml"
    config.write_text("# empty\n", encoding="utf-8")
    settings = load_settings({"VLLM_DIGEST_CONFIG": str(config), "VLLM_DIGEST_TAXONOMY": str(edited),
                              "VLLM_DIGEST_HOME": str(tmp_path / "home")})
    graph = build_definitions(settings).resolve_asset_graph()
    rules = next(k for k in graph.get_all_asset_keys() if k.path[-1] == "ref_taxonomy_rules")
    assert graph.get(rules).code_version == load_taxonomy(edited).fingerprint
