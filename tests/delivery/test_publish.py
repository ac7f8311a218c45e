"""Publishing to a real bare git repository: the branch's files, one commit per publish and none when
nothing changed, a failed push kept and pushed by the next run, others' files and commits kept, and the
token sent only as an HTTP header, never written anywhere."""

import base64
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath

import pytest

from vllm_digest.testing.pipeline import materialize, settings_at
from tests.delivery_helpers import DAY, EARLIER, bare_remote, copy_home, git, reject_pushes, render_days
from vllm_digest.testing.net import free_port
from tests.storage_scan import files_holding
from vllm_digest.delivery.publish import PublishError, publish


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render_days(tmp_path_factory.mktemp("rendered") / "home", DAY)


@pytest.fixture
def remote(tmp_path) -> Path:
    return bare_remote(tmp_path / "pages.git")


def tree(remote: Path, branch: str = "gh-pages") -> set[str]:
    return set(git(remote, "ls-tree", "-r", "--name-only", branch).splitlines())


def commits(remote: Path, branch: str = "gh-pages") -> list[str]:
    return git(remote, "rev-list", branch).splitlines()


def resolve(href: str, base: str) -> str:
    """A relative link of a page at the branch root whose <base href> is ``base``, as a branch path."""
    parts: list[str] = []
    for part in PurePosixPath(base, href).parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def test_branch_files_and_one_commit_per_publish(rendered, remote, tmp_path):
    settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_PUBLISH_REMOTE=f"file://{remote}")
    first = publish(settings)
    assert first.pushed and first.commit == first.head == first.remote_head
    files = tree(remote)
    assert {".nojekyll", "index.html", "site/index.html", "site/feed.xml"} <= files
    assert {f"reports/vllm-project/vllm/{DAY}.{s}" for s in ("zh.md", "en.md", "zh.html", "en.html", "json")} <= files
    assert not [f for f in files if "/." in f or f.startswith("publish.git") or f.startswith("raw/")]
    assert git(remote, "show", "gh-pages:.nojekyll") == ""
    # the root index is the site's index, its links resolved against site/; it links the day's pages
    root = git(remote, "show", "gh-pages:index.html")
    [base] = re.findall(r'<base href="([^"]+)">', root)
    assert base == "site/"
    assert root.replace('<head>\n<base href="site/">', "<head>", 1) == (settings.site_dir / "index.html").read_text(encoding="utf-8").rstrip("\n")
    day_links = [resolve(h, base) for h in re.findall(r'href="([^"#]+)"', root) if DAY in h]
    assert day_links == [f"reports/vllm-project/vllm/{DAY}.zh.html", f"reports/vllm-project/vllm/{DAY}.en.html"]
    assert set(day_links) <= files
    assert git(remote, "log", "-1", "--format=%s", "gh-pages") == f"Publish {DAY} (9 files changed)"

    # nothing changed: no commit, no push
    again = publish(settings)
    assert (again.commit, again.changed, again.pushed) == (None, (), False)
    assert len(commits(remote)) == 1

    # another day rendered (by a graph without publishing): exactly one more commit, on top of the first
    materialize(settings_at(settings.home), EARLIER)
    third = publish(settings)
    assert third.pushed and len(commits(remote)) == 2
    assert git(remote, "rev-parse", "gh-pages~1") == first.commit
    assert f"reports/vllm-project/vllm/{EARLIER}.json" in tree(remote)
    assert git(remote, "log", "-1", "--format=%s", "gh-pages").startswith(f"Publish {EARLIER} (")


def test_failed_push_stays_local_and_is_pushed_by_the_next_run(rendered, remote, tmp_path):
    settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_PUBLISH_REMOTE=f"file://{remote}",
                         VLLM_DIGEST_PUBLISH_BRANCH="pages")
    reject_pushes(remote, True)
    with pytest.raises(PublishError) as err:
        publish(settings)
    assert "git push failed" in str(err.value) and "refused by the test" in str(err.value)
    local = settings.home / "publish.git"
    kept = git(local, "rev-parse", "refs/heads/pages")
    assert git(remote, "rev-parse", "--verify", "--quiet", "refs/heads/pages", check=False) == ""
    assert "site/index.html" in git(local, "ls-tree", "-r", "--name-only", kept)

    reject_pushes(remote, False)
    retry = publish(settings)
    # the kept commit is what goes out: no second commit for the same files
    assert (retry.commit, retry.pushed, retry.head) == (None, True, kept)
    assert commits(remote, "pages") == [kept]


def test_files_and_commits_of_others_on_the_branch_are_kept(rendered, remote, tmp_path):
    # someone set a custom domain on the branch before our first publish
    clone = tmp_path / "clone"
    subprocess.run(["git", "init", "--quiet", "-b", "gh-pages", str(clone)], check=True)
    (clone / "CNAME").write_text("digest.example.org\n")
    env = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "-C", str(clone), *env, "add", "CNAME"], check=True)
    subprocess.run(["git", "-C", str(clone), *env, "commit", "--quiet", "-m", "custom domain"], check=True)
    subprocess.run(["git", "-C", str(clone), "push", "--quiet", f"file://{remote}", "gh-pages"], check=True)
    theirs = git(remote, "rev-parse", "gh-pages")

    settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_PUBLISH_REMOTE=f"file://{remote}")
    reject_pushes(remote, True)
    with pytest.raises(PublishError):
        publish(settings)
    reject_pushes(remote, False)
    # meanwhile they push again: our unpushed commit and theirs diverge
    (clone / "CNAME").write_text("news.example.org\n")
    subprocess.run(["git", "-C", str(clone), *env, "commit", "--quiet", "-am", "new domain"], check=True)
    subprocess.run(["git", "-C", str(clone), "push", "--quiet", f"file://{remote}", "gh-pages"], check=True)
    newer = git(remote, "rev-parse", "gh-pages")

    result = publish(settings)
    assert result.pushed and len(result.superseded) == 1
    assert git(remote, "rev-parse", "gh-pages~1") == newer and git(remote, "rev-parse", "gh-pages~2") == theirs
    assert git(remote, "show", "gh-pages:CNAME") == "news.example.org"
    assert "site/index.html" in tree(remote)


class AuthRecorder:
    """An HTTP server standing in for a git host: records the Authorization header and refuses."""

    def __init__(self):
        self.headers: list[str | None] = []
        self.port = free_port()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                recorder.headers.append(self.headers.get("Authorization"))
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_token_goes_as_a_header_and_nowhere_else(rendered, tmp_path):
    token = "ghp_publishTOKEN0123456789"
    recorder = AuthRecorder()
    try:
        settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_PUBLISH_TOKEN=token,
                             VLLM_DIGEST_PUBLISH_REMOTE=f"http://127.0.0.1:{recorder.port}/o/pages.git")
        with pytest.raises(PublishError) as err:
            publish(settings)
    finally:
        recorder.close()
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    assert recorder.headers and set(recorder.headers) == {f"Basic {basic}"}
    assert "git ls-remote failed" in str(err.value)
    assert token not in str(err.value) and basic not in str(err.value)
    # not in the remote URL, the local repository's config, or any file of the data home
    for secret in (token, basic):
        found, scanned = files_holding(secret, [settings.home])
        assert found == [] and scanned > 10
    assert token not in (settings.home / "publish.git" / "config").read_text()
