"""Message catalogs: adding a language is adding one catalog, and a catalog out of step with the
bundled ones stops the settings with its file, line and key named."""

import re

import pytest

from vllm_digest.core.config.settings import load_settings
from vllm_digest.core.config.values import SettingsError
from vllm_digest.core.i18n import BUNDLED
from vllm_digest.delivery.digest import read_digest
from vllm_digest.delivery.webhook import feishu_payload, slack_payload
from vllm_digest.testing.pipeline import materialize, report_path

DAY = "2026-03-22"


def _third_catalog(folder):
    """A copy of en.toml under the code xx, with its own headings and language name."""
    text = (BUNDLED / "en.toml").read_text(encoding="utf-8")
    for key, old, new in [
        ("name", '"English"', '"Xish"'),
        ("html", '"en"', '"x-xx"'),
        ("title", '"development digest"', '"XX digest"'),
        ("summary", '"Daily summary"', '"XX day in short"'),
        ("key_changes", '"Key changes"', '"XX changes that matter"'),
    ]:
        text, n = re.subn(rf"(?m)^{key} = {re.escape(old)}", f"{key} = {new}", text, count=1)
        assert n == 1, key
    # delivery's own header, and a Feishu locale of its own (the test below checks both are used)
    text = text.replace('header = "{name} development digest - {day}"', 'header = "{name} XX digest of {day}"')
    text = text.replace('feishu_locale = "en_us"', 'feishu_locale = "xx_xx"')
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "xx.toml").write_text(text, encoding="utf-8")
    return folder


def test_a_third_catalog_is_a_third_language(make_settings, tmp_path):
    settings = make_settings(VLLM_DIGEST_CATALOG_DIR=str(_third_catalog(tmp_path / "i18n")),
                             VLLM_DIGEST_LANGUAGES="zh,en,xx")
    materialize(settings, DAY)
    xx = report_path(settings, DAY, "xx.md").read_text(encoding="utf-8")
    en = report_path(settings, DAY, "en.md").read_text(encoding="utf-8")
    assert xx.startswith("# vLLM XX digest - 2026-03-22\n")
    assert "### 📊 XX day in short\n" in xx and "### 🛠️ XX changes that matter\n" in xx
    # everything else reads as the English it was copied from
    assert xx.replace("XX digest", "development digest").replace("XX day in short", "Daily summary").replace(
        "XX changes that matter", "Key changes") == en
    html = report_path(settings, DAY, "xx.html").read_text(encoding="utf-8")
    assert '<html lang="x-xx">' in html and "<h2>🛠️ XX changes that matter</h2>" in html
    # every page offers every language, by the name its own catalog gives
    zh_html = report_path(settings, DAY, "zh.html").read_text(encoding="utf-8")
    assert f'<a href="{DAY}.xx.html" hreflang="xx">Xish</a>' in zh_html
    assert "<strong>Xish</strong>" in html
    summary = report_path(settings, DAY, "json").read_text(encoding="utf-8")
    assert '"xx": "This window saw ' in summary
    assert "Xish" in (settings.site_dir / "index.html").read_text(encoding="utf-8")
    # delivery's messages speak it too: header, Feishu locale, topic names from the day's JSON
    digest = read_digest(settings, settings.repos[0], DAY)
    assert digest.header("xx", updated=True) == "vLLM XX digest of 2026-03-22 (updated)"
    post = feishu_payload(digest, settings.languages, False, None, 0)["content"]["post"]
    assert list(post) == ["zh_cn", "en_us", "xx_xx"]
    # the title is the header and the day's top story (its headline in that language, or any the day has)
    assert post["xx_xx"]["title"] == f"vLLM XX digest of 2026-03-22 — {digest.day_headline('xx')}"
    assert digest.day_headline("xx")
    assert post["xx_xx"]["content"][1:] == post["en_us"]["content"][1:]
    assert digest.topic_labels("xx") == digest.topic_labels("en") and digest.topic_labels("xx")
    assert slack_payload(digest, "xx", False)["blocks"][1:] == slack_payload(digest, "en", False)["blocks"][1:]


def test_the_bundled_catalogs_are_the_languages(tmp_path):
    settings = load_settings({"VLLM_DIGEST_HOME": str(tmp_path)})
    assert settings.languages == ("zh", "en") and settings.feed_language == "en"
    with pytest.raises(SettingsError, match=r"languages 'zh,xx'.*\['en', 'zh'\]"):
        load_settings({"VLLM_DIGEST_HOME": str(tmp_path), "VLLM_DIGEST_LANGUAGES": "zh,xx"})


@pytest.mark.parametrize("edit, message", [
    # a key left out
    (lambda t: re.sub(r'(?m)^read = "Read"\n', "", t), r"xx\.toml'?: missing key\(s\) \['site\.read'\]"),
    # a placeholder misspelt: the line is named
    (lambda t: t.replace('counts = "This window saw {new_issues} new',
                         'counts = "This window saw {new_isues} new'),
     r"xx\.toml' line \d+: key 'summary\.counts' must be filled with .*'new_issues'.* not .*'new_isues'"),
    # a key no code reads
    (lambda t: t.replace("[site]\n", '[site]\ncolour = "red"\n'), r"xx\.toml' line \d+: key 'site\.colour' is unknown"),
    # a choice the code acts on
    (lambda t: t.replace('names = "en"', 'names = "fr"'),
     r"xx\.toml' line \d+: key 'language\.names' must be one of \['zh', 'en'\], not 'fr'"),
    # a list where a string belongs
    (lambda t: t.replace('none = "none"', 'none = ["none"]'), r"xx\.toml' line \d+: key 'appendix\.none' must be a string"),
    (lambda t: t + "\n[broken\n", r"xx\.toml'?: not valid TOML"),
])
def test_a_catalog_out_of_step_names_file_line_and_key(tmp_path, edit, message):
    folder = tmp_path / "i18n"
    folder.mkdir()
    (folder / "xx.toml").write_text(edit((BUNDLED / "en.toml").read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(SettingsError, match=message):
        load_settings({"VLLM_DIGEST_HOME": str(tmp_path), "VLLM_DIGEST_CATALOG_DIR": str(folder),
                       "VLLM_DIGEST_LANGUAGES": "en,xx"})
