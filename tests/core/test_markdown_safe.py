"""md_inline: each neutralising pass runs only when the text holds a character its every match needs;
these texts each need one pass (or several), and a text needing none comes back as it is."""

import pytest

from vllm_digest.core.text.markdown_safe import md_inline


@pytest.mark.parametrize("text, safe", [
    ("plain title", "plain title"),
    ("a &amp; b & c", "a &amp;amp; b &amp; c"),  # an entity: every & escaped
    ("a & b; c", "a & b; c"),  # no entity: left alone
    ("<script>x</script> <tool_call>", "&lt;script>x&lt;/script> <tool_call>"),
    ("<https://x.y>", "&lt;https\\://x.y>"),
    ("![img](u) [t](u)", "!\\[img\\](u) [t\\](u)"),
    ("see HTTP://a and javascript:b, ftp: ok", "see HTTP\\://a and javascript\\:b, ftp\\: ok"),
    ("go to WWW.example.com or www.x", "go to WWW\\.example.com or www\\.x"),
    ("ſtp: fiLe:", "ſtp: fiLe\\:"),  # 'ſtp' is no scheme, 'fiLe' is one in any case
    ("a\u202eb\nc", "ab c"),
])
def test_md_inline_neutralises_only_what_could_start_markup(text, safe):
    assert md_inline(text) == safe
