"""Publish ``site/`` and ``reports/`` as one commit on a branch of a git remote (GitHub Pages).

The branch mirrors the data home's layout, ``site/`` and ``reports/`` side by side, so every
relative link the site and the reports hold works unchanged; the branch root adds
``.nojekyll`` (Pages serves the files as they are) and an ``index.html`` that is the site's
index with ``<base href="site/">``, so the Pages root shows the index and its links resolve.
Any other file on the branch (a ``CNAME`` for a custom domain) is kept.

The local repository is ``<home>/publish.git`` (bare). Each run:

1. reads the remote branch (``ls-remote``, then ``fetch``);
2. starts from the local branch when it holds the remote one (a push that failed last run is
   still on it), from the remote one otherwise;
3. builds the tree from the files on disk (``add`` with the home as work tree, into the
   repository's own index, which keeps git's stat cache between runs);
4. commits only when that tree differs from the base's: nothing changed, no commit;
5. pushes when the local branch is ahead of the remote one, never with force. A failed push
   leaves the commit on the local branch, and the next run pushes it.

A token (``VLLM_DIGEST_PUBLISH_TOKEN``; ``GITHUB_TOKEN`` for a remote on the GitHub host) goes
to git as an ``http.<remote>.extraHeader`` through ``GIT_CONFIG_*`` variables of the git
process's environment: never in the remote URL, a file, the git config or a log line.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import re
import signal
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from vllm_digest.core.config.settings import Settings
# a git command that talks to the remote (ls-remote, fetch, push) gets publish_deadline seconds
# (VLLM_DIGEST_PUBLISH_DEADLINE, default 300); one that works on the local repository this many
LOCAL_TIMEOUT_SECONDS = 120
# after the kill, how long to wait for git's pipes to close
_REAP_SECONDS = 10
# what the branch takes from the data home
PUBLISHED_DIRS = ("site", "reports")
IDENTITY = {"name": "vllm-digest", "email": "vllm-digest@users.noreply.github.com"}
_REDIRECTING_ENV = {
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_CONFIG_PARAMETERS",
}
_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})\.")


class PublishError(RuntimeError):
    """Git failed; the message (token-free) says which step and what git said."""


@dataclasses.dataclass(frozen=True)
class PublishResult:
    branch: str
    head: str | None           # the local branch after this run
    commit: str | None         # the commit this run made (None: nothing changed, or a dry run)
    changed: tuple[str, ...]   # paths the commit (or, in a dry run, the would-be commit) changes
    pushed: bool               # this run pushed the branch
    remote_head: str | None    # the remote branch after this run
    superseded: tuple[str, ...] = ()  # local commits never pushed, left behind for the remote's newer ones
    dry_run: bool = False


def publish_token(settings: Settings) -> str | None:
    """``VLLM_DIGEST_PUBLISH_TOKEN``; else ``GITHUB_TOKEN``, but only for a remote on the GitHub host,
    so the GitHub token is never offered to another server."""
    config = settings.delivery
    if config.publish_token:
        return config.publish_token
    remote = urlsplit(config.publish_remote or "")
    if remote.scheme in ("http", "https") and remote.hostname == urlsplit(settings.github_web_url).hostname:
        return settings.github_token
    return None


class Git:
    """Runs git on the local publish repository; every message is scrubbed of the token."""

    def __init__(self, git_dir: Path, remote: str, token: str | None, network_deadline: int = 300):
        self.git_dir = git_dir
        self.remote = remote
        self.network_deadline = network_deadline
        self._secrets = []
        # the caller's own repository and config injections (a run started from inside a git hook)
        # must not redirect ours; GIT_SSH_COMMAND, proxies and the like still apply
        self.env = {k: v for k, v in os.environ.items() if k not in _REDIRECTING_ENV and not k.startswith("GIT_CONFIG_")}
        self.env.update(
            GIT_DIR=str(git_dir), GIT_INDEX_FILE=str(git_dir / "publish-index"), GIT_TERMINAL_PROMPT="0",
            LC_ALL="C", GIT_AUTHOR_NAME=IDENTITY["name"], GIT_AUTHOR_EMAIL=IDENTITY["email"],
            GIT_COMMITTER_NAME=IDENTITY["name"], GIT_COMMITTER_EMAIL=IDENTITY["email"],
        )
        if token and urlsplit(remote).scheme in ("http", "https"):
            # GitHub takes a token as the password of basic auth (user x-access-token); scoped to the
            # remote's URL, so git sends it to no other address
            header = base64.b64encode(f"x-access-token:{token}".encode()).decode()
            self._secrets = [token, header]
            self.env.update(
                GIT_CONFIG_COUNT="1",
                GIT_CONFIG_KEY_0=f"http.{remote}.extraHeader",
                GIT_CONFIG_VALUE_0=f"Authorization: Basic {header}",
            )

    def scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def __call__(self, *args: str, stdin: bytes | None = None, network: bool = False, check: bool = True,
                 work_tree: Path | None = None) -> str:
        env = dict(self.env, GIT_WORK_TREE=str(work_tree)) if work_tree else self.env
        # commit.gpgSign off: a user's signing setup would make an unattended commit hang or fail
        command = ["git", "-c", "commit.gpgSign=false", "-c", "core.excludesFile=", *args]
        limit = self.network_deadline if network else LOCAL_TIMEOUT_SECONDS
        returncode, stdout, stderr = _run_bounded(command, stdin, env, limit)
        if returncode is None:
            setting = " (publish_deadline, VLLM_DIGEST_PUBLISH_DEADLINE)" if network else ""
            raise PublishError(f"git {args[0]} did not finish within the {limit}s deadline{setting}: stopped it and its helpers")
        if check and returncode != 0:
            said = self.scrub(stderr.decode("utf-8", "replace").strip())[-1500:]
            raise PublishError(f"git {args[0]} failed (exit {returncode}): {said}")
        return stdout.decode("utf-8", "replace").strip()

    def ref(self, name: str) -> str | None:
        return self("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}", check=False) or None

    def is_ancestor(self, older: str, newer: str) -> bool:
        return subprocess.run(
            ["git", "merge-base", "--is-ancestor", older, newer], env=self.env, capture_output=True,
            timeout=LOCAL_TIMEOUT_SECONDS,
        ).returncode == 0


def _run_bounded(command: list[str], stdin: bytes | None, env: dict, seconds: float) -> tuple[int | None, bytes, bytes]:
    """Run ``command``; its exit code and output, or None for the code when it ran past ``seconds``.

    git hands the network to helpers (git-remote-http, ssh) that a plain kill of git would leave
    running, holding the connection: git starts in a process group of its own, and the whole group
    is killed at the deadline."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, start_new_session=True)
    try:
        stdout, stderr = process.communicate(stdin, timeout=seconds)
        return process.returncode, stdout, stderr
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            process.communicate(timeout=_REAP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        return None, b"", b""


def _remote_head(git: Git, branch: str) -> str | None:
    """Fetch the remote branch; its commit, or None when the remote has no such branch yet."""
    listed = git("ls-remote", "--heads", git.remote, f"refs/heads/{branch}", network=True)
    if not listed:
        git("update-ref", "-d", f"refs/remotes/origin/{branch}", check=False)
        return None
    git("fetch", "--quiet", "--no-tags", git.remote, f"+refs/heads/{branch}:refs/remotes/origin/{branch}", network=True)
    return git.ref(f"refs/remotes/origin/{branch}")


def _base(git: Git, local: str | None, remote: str | None) -> tuple[str | None, tuple[str, ...]]:
    """The commit to build on, and the local commits it leaves behind (when the branches diverged)."""
    if remote is None or local == remote:
        return local, ()
    if local is None or git.is_ancestor(local, remote):
        return remote, ()
    if git.is_ancestor(remote, local):
        return local, ()
    # someone else pushed while our last commit waited: build on theirs. Our unpushed commits are
    # snapshots of the same files the new commit holds, so nothing of ours is lost.
    return remote, tuple(git("rev-list", local, f"^{remote}").split())


def root_index(site_index: str) -> str:
    """The site's index for the branch root: links resolve against ``site/`` as they do in it."""
    return site_index.replace("<head>", '<head>\n<base href="site/">', 1)


def _stage(git: Git, settings: Settings, base: str | None) -> str:
    """The tree to publish: the base's tree with site/ and reports/ as on disk and the two root files."""
    home = settings.home
    if base:
        # -m keeps the stat cache of paths whose content is unchanged, so add re-hashes only new files;
        # without -u it writes no file of the work tree
        git("read-tree", "-m", base, work_tree=home)
    else:
        git("read-tree", "--empty")
    for name in PUBLISHED_DIRS:
        if (home / name).is_dir():
            # dot files are the atomic writes' temporaries
            git("add", "--all", "--", name, f":(exclude,glob){name}/**/.*", work_tree=home)
        else:
            git("rm", "-r", "--cached", "--quiet", "--ignore-unmatch", "--", name)
    roots = {".nojekyll": b""}
    index = settings.site_dir / "index.html"
    if index.is_file():
        roots["index.html"] = root_index(index.read_text(encoding="utf-8")).encode("utf-8")
    for name, data in roots.items():
        blob = git("hash-object", "-w", "--stdin", stdin=data)
        git("update-index", "--add", "--cacheinfo", f"100644,{blob},{name}")
    return git("write-tree")


def _message(changed: tuple[str, ...]) -> str:
    days = sorted({m.group(1) for p in changed if p.startswith("reports/") and (m := _DAY.search(p.rsplit("/", 1)[-1]))})
    what = f"{days[0]}" if len(days) == 1 else f"{len(days)} days, {days[0]} to {days[-1]}" if days else "the site"
    return f"Publish {what} ({len(changed)} files changed)"


def publish(settings: Settings) -> PublishResult:
    """One publish run (see the module docstring); raises ``PublishError`` with git's words."""
    config = settings.delivery
    if not config.publish_remote:
        raise PublishError("no publish remote is configured (VLLM_DIGEST_PUBLISH_REMOTE)")
    branch = config.publish_branch
    git_dir = settings.home / "publish.git"
    git = Git(git_dir, config.publish_remote, publish_token(settings), config.publish_deadline)
    if not (git_dir / "HEAD").is_file():
        git_dir.mkdir(parents=True, exist_ok=True)
        git("init", "--quiet", "--bare")
    git("symbolic-ref", "HEAD", f"refs/heads/{branch}")
    remote = _remote_head(git, branch)
    local = git.ref(f"refs/heads/{branch}")
    base, superseded = _base(git, local, remote)
    tree = _stage(git, settings, base)
    base_tree = git("rev-parse", f"{base}^{{tree}}") if base else None
    if tree == base_tree:
        changed: tuple[str, ...] = ()
    elif base_tree:
        changed = tuple(git("diff-tree", "-r", "--name-only", base_tree, tree).splitlines())
    else:
        changed = tuple(git("ls-tree", "-r", "--name-only", tree).splitlines())
    if config.dry_run:
        return PublishResult(branch, local, None, changed, False, remote, superseded, dry_run=True)
    commit = None
    head = base
    if changed:
        parents = ["-p", base] if base else []
        commit = git("commit-tree", tree, *parents, "-m", _message(changed))
        head = commit
    if head != local:
        # the old value guards against a concurrent run moving the branch under us
        git("update-ref", f"refs/heads/{branch}", head, local or "0" * 40)
    pushed = False
    if head and head != remote:
        git("push", "--quiet", git.remote, f"{head}:refs/heads/{branch}", network=True)
        git("update-ref", f"refs/remotes/origin/{branch}", head)
        pushed, remote = True, head
    return PublishResult(branch, head, commit, changed, pushed, remote, superseded)
