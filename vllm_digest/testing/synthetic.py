"""A deterministic synthetic vllm-project/vllm at its real daily volume and shape.

The targets are what the embedded sample's 22 real March 2026 report windows
hold per day: about 22 new issues, 78 new PRs, 36 merged PRs, 28 PRs closed
without merge and 22 closed issues, quiet weekends, one 128-closure stale
sweep, and about 400 conversation comments. The output is the sample folder
layout (``issues.jsonl``, ``events.jsonl``, ``comments.jsonl``,
``pulls.jsonl``, ``coverage.json``) so the real ``sample`` source serves it
through ``VLLM_DIGEST_SAMPLE_DIR`` and the real GitHub emulator can load it.

Everything comes from one ``random.Random(seed)``: same seed and arguments give
the same bytes.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass
from pathlib import Path

UTC = dt.timezone.utc
REPO = "vllm-project/vllm"
API = f"https://api.github.com/repos/{REPO}"
WEB = f"https://github.com/{REPO}"

# per-day means measured on the sample's 22 real windows (the stale sweep included)
TARGETS = {
    "new_issues": 22.0,
    "new_prs": 78.0,
    "merged_prs": 36.0,
    "closed_unmerged_prs": 28.0,
    "closed_issues": 22.0,
    "comments": 400.0,
}
SWEEP_SIZE = 128
SWEEP_EVERY_DAYS = 22  # the sample saw one sweep in 22 days
# half of the sweep closes issues, half PRs; the daily base rates leave room for it
_SWEEP_SHARE = SWEEP_SIZE / 2 / SWEEP_EVERY_DAYS
WEEKEND_FACTOR = 0.5
WEEKDAY_FACTOR = 7 / (5 + 2 * WEEKEND_FACTOR)  # keeps the weekly mean at the target
BACKLOG = 3000  # open items older than the period: what the stale bot and old threads draw on

PR_TAGS = [
    ("[Bugfix]", ["bug"]), ("[ROCm]", ["rocm"]), ("[Tool Parser]", ["tool-calling", "frontend"]),
    ("[Perf]", ["performance"]), ("[CI]", ["ci/build"]), ("[Model]", ["new-model"]),
    ("[Kernel]", ["nvidia"]), ("[Core]", ["v1"]), ("[Frontend]", ["frontend"]), ("[Doc]", ["documentation"]),
    ("[Misc]", []), ("[Model Runner V2]", ["v1"]), ("[XPU]", ["intel-gpu"]), ("[Refactor]", []),
    ("[torch.compile]", ["torch.compile"]), ("[Quantization]", ["quantization"]), ("[Spec Decode]", ["speculative-decoding"]),
    ("[KV Connector]", ["kv-connector"]), ("[Multimodal]", ["multi-modality"]), ("[CPU]", ["cpu"]),
]
ISSUE_TAGS = [
    ("[Bug]", ["bug"]), ("[Feature]", ["feature request"]), ("[RFC]", ["RFC"]), ("[Usage]", ["usage"]),
    ("[CI Failure]", ["ci-failure"]), ("[Performance]", ["performance"]), ("[Installation]", ["installation"]),
    ("[Doc]", ["documentation"]),
]
SUBJECTS = [
    "FP8 MoE", "DeepSeek-V3", "Qwen3-Next", "gpt-oss", "Llama 4", "prefix caching", "chunked prefill",
    "CUDA graphs", "the scheduler", "KV cache offload", "structured output", "tool call parsing",
    "the OpenAI server", "Responses API", "EAGLE speculative decoding", "FlashInfer backend", "AITER kernels",
    "NVFP4 quantization", "LoRA adapters", "pipeline parallelism", "expert parallel load balancing",
    "the V1 engine", "multimodal inputs", "the MI300X build", "Blackwell (SM100)", "the TPU backend",
]
VERBS = [
    "Fix crash in", "Support", "Speed up", "Refactor", "Add tests for", "Fix wrong output from", "Enable",
    "Remove dead code in", "Handle empty batch in", "Avoid recompilation in", "Fix OOM in", "Clean up",
]
ISSUE_PHRASES = [
    "crashes with illegal memory access on", "hangs when serving", "gives wrong logits with",
    "is much slower than 0.11 on", "fails to load", "raises KeyError in", "ignores max_tokens with",
    "does not support", "leaks memory with", "segfaults at startup with",
]
# Filler prose for bodies and comments. None of it is a taxonomy keyword: an item's topics come
# from its title, labels and code snippets, as in the real sample (≈ 2 topic hits and 0.12 AMD
# focus items per item). Technical filler words ("ROCm", "test", "kernel", ...) made 97 % of
# synthetic items AMD focus items and 10x the sample's topic hits, inflating the analytics.
WORDS = (
    "the request batch token cache tensor rank output prompt logits backend config flag profile "
    "reproduce environment version commit path value result step case code call check run log line "
    "file time number size shape error message option default user input setting when with after "
    "before because so that this change adds removes updates the and of to in for on it is we"
).split()
CODE = [
    "```\nTraceback (most recent call last):\n  File \"vllm/v1/engine/core.py\", line 512, in step\n"
    "    outputs = self.model_executor.execute_model(scheduler_output)\nRuntimeError: CUDA error: an illegal memory access was encountered\n```",
    "```bash\nvllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 2 --enable-expert-parallel\n```",
    "```python\nfrom vllm import LLM, SamplingParams\nllm = LLM(model=\"meta-llama/Llama-3.1-8B-Instruct\")\n"
    "print(llm.generate([\"Hello\"], SamplingParams(max_tokens=16)))\n```",
    "| backend | tok/s before | tok/s after |\n|---|---|---|\n| FLASH_ATTN | 10412 | 11987 |\n| FLASHINFER | 9876 | 11230 |",
]
MAINTAINERS = [f"maintainer{i:02d}" for i in range(25)]
CONTRIBUTORS = [f"contributor{i:04d}" for i in range(1500)]
BOTS = [("github-actions[bot]", "Bot"), ("mergify[bot]", "Bot"), ("gemini-code-assist[bot]", "Bot")]
STALE_BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}


def _ts(moment: dt.datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _user(login: str, kind: str = "User") -> dict:
    # a stable id per login, like GitHub's, without hash() (which is salted per process)
    uid = sum((i + 1) * ord(c) for i, c in enumerate(login)) * 7919 % 10**8
    return {"login": login, "id": uid, "type": kind}


@dataclass
class _Item:
    number: int
    is_pr: bool
    created: dt.datetime
    title: str
    labels: list[str]
    author: str
    association: str
    body: str
    closed: dt.datetime | None = None
    merged: dt.datetime | None = None
    comments: int = 0
    last_comment: dt.datetime | None = None
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0
    commits: int = 1
    draft: bool = False


class Generator:
    def __init__(self, seed: int, start: dt.datetime, days: int, tz: dt.tzinfo):
        self.rng = random.Random(seed)
        self.start = start
        self.days = days
        self.tz = tz
        self.items: dict[int, _Item] = {}
        self.events: list[dict] = []
        self.comments: list[dict] = []
        self.open_prs: list[int] = []
        self.open_issues: list[int] = []
        self.next_number = 20000
        self.next_event_id = 5_000_000_000
        self.next_comment_id = 3_000_000_000
        self.hot: list[int] = []

    # ------------------------------------------------------------- text
    def _sentence(self, n: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(n)).capitalize() + "."

    def _body(self, paragraphs: int) -> str:
        parts = ["## Summary", self._sentence(self.rng.randint(12, 30))]
        for _ in range(paragraphs):
            parts.append(" ".join(self._sentence(self.rng.randint(8, 20)) for _ in range(self.rng.randint(2, 5))))
            if self.rng.random() < 0.4:
                parts.append(self.rng.choice(CODE))
        parts += ["## Test Plan", self._sentence(self.rng.randint(6, 14))]
        return "\n\n".join(parts)

    def _title(self, is_pr: bool) -> tuple[str, list[str]]:
        if is_pr:
            tag, labels = self.rng.choice(PR_TAGS)
            title = f"{tag} {self.rng.choice(VERBS)} {self.rng.choice(SUBJECTS)}"
        else:
            tag, labels = self.rng.choice(ISSUE_TAGS)
            title = f"{tag}: {self.rng.choice(SUBJECTS)} {self.rng.choice(ISSUE_PHRASES)} {self.rng.choice(SUBJECTS)}"
        labels = list(labels)
        if is_pr and self.rng.random() < 0.3:
            labels.append("ready")
        if self.rng.random() < 0.1:
            labels.append("needs-rebase")
        return title, labels

    def _author(self) -> tuple[str, str]:
        if self.rng.random() < 0.2:
            return self.rng.choice(MAINTAINERS), "MEMBER"
        return self.rng.choice(CONTRIBUTORS), self.rng.choice(["CONTRIBUTOR", "CONTRIBUTOR", "NONE"])

    # ------------------------------------------------------------- items
    def _new_item(self, is_pr: bool, created: dt.datetime) -> _Item:
        title, labels = self._title(is_pr)
        author, assoc = self._author()
        item = _Item(
            number=self.next_number, is_pr=is_pr, created=created, title=title, labels=labels,
            author=author, association=assoc, body=self._body(self.rng.randint(2, 6)),
        )
        if is_pr:
            item.additions = int(self.rng.paretovariate(1.2) * 10)
            item.deletions = int(self.rng.paretovariate(1.4) * 4)
            item.changed_files = max(1, int(self.rng.paretovariate(1.5)))
            item.commits = self.rng.randint(1, 12)
            item.draft = self.rng.random() < 0.08
        self.next_number += 1
        self.items[item.number] = item
        (self.open_prs if is_pr else self.open_issues).append(item.number)
        return item

    def _backlog(self) -> None:
        # items created over the year before the period, all still open at its start
        for _ in range(BACKLOG):
            age = dt.timedelta(seconds=self.rng.randint(31 * 86400, 365 * 86400))
            item = self._new_item(self.rng.random() < 0.55, self.start - age)
            item.labels.append("stale") if self.rng.random() < 0.3 else None
        # numbers must rise with creation time, as on GitHub
        ordered = sorted(self.items.values(), key=lambda i: i.created)
        self.items = {}
        for n, item in enumerate(ordered, start=20000):
            item.number = n
            self.items[n] = item
        self.open_prs = [i.number for i in ordered if i.is_pr]
        self.open_issues = [i.number for i in ordered if not i.is_pr]

    def _event(self, kind: str, number: int, at: dt.datetime, actor: dict | None) -> None:
        self.events.append({
            "id": self.next_event_id, "node_id": f"E_{self.next_event_id}", "event": kind,
            "created_at": _ts(at), "url": f"{API}/issues/events/{self.next_event_id}",
            "actor": actor, "commit_id": None,
            "issue": {"number": number, "url": f"{API}/issues/{number}"},
        })
        self.next_event_id += 1

    def _take(self, pool: list[int], before: dt.datetime, recent_bias: float) -> int | None:
        """An open item created before ``before``; recent ones more often, like real review queues."""
        for _ in range(8):
            if not pool:
                return None
            span = len(pool)
            if self.rng.random() < recent_bias:
                idx = span - 1 - min(span - 1, int(self.rng.expovariate(1 / 150)))
            else:
                idx = self.rng.randrange(span)
            number = pool[idx]
            if self.items[number].created < before:
                pool.pop(idx)
                return number
        return None

    def _close(self, number: int, at: dt.datetime, merged: bool, actor: dict | None) -> None:
        item = self.items[number]
        item.closed = at
        if merged:
            item.merged = at
            # GitHub emits a merge as a merged and a closed event at the same instant
            self._event("merged", number, at, actor)
        self._event("closed", number, at, actor)

    def _comment(self, number: int, at: dt.datetime) -> None:
        item = self.items[number]
        roll = self.rng.random()
        if roll < 0.15:
            login, kind = self.rng.choice(BOTS)
            assoc = "NONE"
        elif roll < 0.45:
            login, kind, assoc = self.rng.choice(MAINTAINERS), "User", "MEMBER"
        else:
            login, kind, assoc = self.rng.choice(CONTRIBUTORS), "User", "CONTRIBUTOR"
        cid = self.next_comment_id
        self.next_comment_id += 1
        body = " ".join(self._sentence(self.rng.randint(6, 18)) for _ in range(self.rng.randint(1, 4)))
        if self.rng.random() < 0.1:
            body += "\n\n" + self.rng.choice(CODE)
        self.comments.append({
            "id": cid, "node_id": f"IC_{cid}", "url": f"{API}/issues/comments/{cid}",
            "html_url": f"{WEB}/{'pull' if item.is_pr else 'issues'}/{number}#issuecomment-{cid}",
            "issue_url": f"{API}/issues/{number}", "user": _user(login, kind), "author_association": assoc,
            "created_at": _ts(at), "updated_at": _ts(at), "body": body,
            "reactions": {"total_count": self.rng.choice([0, 0, 0, 0, 1, 2, 5])},
        })
        item.comments += 1
        item.last_comment = at

    # ------------------------------------------------------------- days
    def _count(self, mean: float, factor: float) -> int:
        # normal noise around the day's mean; never negative
        return max(0, round(self.rng.gauss(mean * factor, mean * factor * 0.15)))

    def _moments(self, day_start: dt.datetime, n: int) -> list[dt.datetime]:
        return sorted(day_start + dt.timedelta(seconds=self.rng.randrange(86400)) for _ in range(n))

    def day(self, index: int) -> None:
        day_start = self.start + dt.timedelta(days=index)
        weekend = day_start.astimezone(self.tz).weekday() >= 5
        factor = WEEKEND_FACTOR if weekend else WEEKDAY_FACTOR
        actions: list[tuple[dt.datetime, str]] = []
        for kind, mean in (
            ("new_issue", TARGETS["new_issues"]), ("new_pr", TARGETS["new_prs"]),
            ("merge", TARGETS["merged_prs"]), ("close_pr", TARGETS["closed_unmerged_prs"] - _SWEEP_SHARE),
            ("close_issue", TARGETS["closed_issues"] - _SWEEP_SHARE), ("comment", TARGETS["comments"]),
        ):
            actions += [(t, kind) for t in self._moments(day_start, self._count(mean, factor))]
        actions.sort(key=lambda a: (a[0], a[1]))
        if index % 3 == 0 or not self.hot:  # a few hot threads at a time, refreshed every few days
            recent = [n for n in self.open_issues[-200:] + self.open_prs[-200:]]
            self.hot = self.rng.sample(recent, min(3, len(recent))) if recent else []
        touched: list[int] = []
        for at, kind in actions:
            if kind == "new_issue" or kind == "new_pr":
                touched.append(self._new_item(kind == "new_pr", at).number)
            elif kind == "merge":
                n = self._take(self.open_prs, at, 0.9)
                if n is not None:
                    self._close(n, at, True, _user(self.rng.choice(MAINTAINERS)))
            elif kind == "close_pr":
                n = self._take(self.open_prs, at, 0.5)
                if n is not None:
                    self._close(n, at, False, _user(self.items[n].author))
            elif kind == "close_issue":
                n = self._take(self.open_issues, at, 0.6)
                if n is not None:
                    self._close(n, at, False, _user(self.rng.choice(MAINTAINERS)))
            else:
                roll = self.rng.random()
                if roll < 0.3 and self.hot:
                    n = self.rng.choice(self.hot)
                elif roll < 0.75 and touched:
                    n = self.rng.choice(touched)
                else:
                    pool = self.open_prs if self.rng.random() < 0.6 else self.open_issues
                    n = pool[-1 - min(len(pool) - 1, int(self.rng.expovariate(1 / 300)))]
                if self.items[n].created < at:
                    self._comment(n, at)
        if index % SWEEP_EVERY_DAYS == SWEEP_EVERY_DAYS // 2:
            self._stale_sweep(day_start)

    def _stale_sweep(self, day_start: dt.datetime) -> None:
        # the stale bot closes the oldest untouched items in one burst, minutes apart at most
        at = day_start + dt.timedelta(hours=self.rng.randint(1, 22))
        cutoff = at - dt.timedelta(days=90)
        for pool, n_close in ((self.open_issues, SWEEP_SIZE // 2), (self.open_prs, SWEEP_SIZE // 2)):
            old = [n for n in pool if self.items[n].created < cutoff][:n_close]
            for k, n in enumerate(old):
                pool.remove(n)
                self.items[n].labels.append("stale") if "stale" not in self.items[n].labels else None
                self._close(n, at + dt.timedelta(seconds=k * 2), False, STALE_BOT)

    # ------------------------------------------------------------- output
    def issue_json(self, item: _Item) -> dict:
        path = "pull" if item.is_pr else "issues"
        # as on GitHub, a new comment bumps the item's updated_at (the issues list's `since` reads it)
        latest = max(t for t in (item.created, item.closed, item.last_comment) if t is not None)
        obj = {
            "id": item.number * 1_000_003, "node_id": f"I_{item.number}", "number": item.number,
            "title": item.title, "user": _user(item.author), "labels": [{"name": x} for x in item.labels],
            "state": "closed" if item.closed else "open", "created_at": _ts(item.created),
            "updated_at": _ts(latest), "closed_at": _ts(item.closed) if item.closed else None,
            "author_association": item.association, "comments": item.comments, "body": item.body,
            "reactions": {"total_count": item.comments // 7},
            "html_url": f"{WEB}/{path}/{item.number}", "url": f"{API}/issues/{item.number}",
            "repository_url": API,
        }
        if item.is_pr:
            obj["pull_request"] = {
                "url": f"{API}/pulls/{item.number}", "html_url": f"{WEB}/pull/{item.number}",
                "merged_at": _ts(item.merged) if item.merged else None,
            }
            obj["draft"] = item.draft
        return obj

    def pull_json(self, item: _Item) -> dict:
        return {
            "number": item.number, "additions": item.additions, "deletions": item.deletions,
            "changed_files": item.changed_files, "commits": item.commits, "draft": item.draft,
            "merged_at": _ts(item.merged) if item.merged else None,
        }


def _write_jsonl(path: Path, rows) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
            fh.write("\n")


def generate(
    root: Path,
    start: dt.datetime,
    days: int,
    seed: int = 20260301,
    tz: dt.tzinfo = dt.timezone(dt.timedelta(hours=8)),
) -> Path:
    """Write ``days`` synthetic report windows starting at ``start`` under
    ``root/vllm-project__vllm/``; returns that folder. ``start`` should be the
    first day's window start so each generated day is exactly one report window."""
    gen = Generator(seed, start.astimezone(UTC), days, tz)
    gen._backlog()
    for index in range(days):
        gen.day(index)
    folder = root / "vllm-project__vllm"
    folder.mkdir(parents=True, exist_ok=True)
    items = sorted(gen.items.values(), key=lambda i: i.number)
    _write_jsonl(folder / "issues.jsonl", (gen.issue_json(i) for i in items))
    _write_jsonl(folder / "pulls.jsonl", (gen.pull_json(i) for i in items if i.is_pr))
    _write_jsonl(folder / "events.jsonl", gen.events)
    _write_jsonl(folder / "comments.jsonl", gen.comments)
    end = start + dt.timedelta(days=days)
    (folder / "coverage.json").write_text(
        json.dumps({"start": _ts(start), "end": _ts(end)}) + "\n", encoding="utf-8"
    )
    return folder


def daily_stats(folder: Path, start: dt.datetime, days: int) -> list[dict[str, int]]:
    """The five counts and comments per generated day, by the README's rules, read back from the files."""
    def parse(s: str) -> dt.datetime:
        return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))

    def index(s: str) -> int:
        return int((parse(s) - start).total_seconds() // 86400)

    def rows(name: str) -> list[dict]:
        with open(folder / name, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh]

    out = [{k: 0 for k in TARGETS} for _ in range(days)]
    is_pr = {}
    for it in rows("issues.jsonl"):
        is_pr[it["number"]] = "pull_request" in it
        d = index(it["created_at"])
        if 0 <= d < days:
            out[d]["new_prs" if is_pr[it["number"]] else "new_issues"] += 1
    events = rows("events.jsonl")
    merges = {(e["issue"]["number"], e["created_at"]) for e in events if e["event"] == "merged"}
    for e in events:
        d = index(e["created_at"])
        if not 0 <= d < days:
            continue
        n = e["issue"]["number"]
        if e["event"] == "merged":
            out[d]["merged_prs"] += 1
        elif e["event"] == "closed":
            if not is_pr[n]:
                out[d]["closed_issues"] += 1
            elif (n, e["created_at"]) not in merges:
                out[d]["closed_unmerged_prs"] += 1
    for c in rows("comments.jsonl"):
        d = index(c["created_at"])
        if 0 <= d < days:
            out[d]["comments"] += 1
    return out
