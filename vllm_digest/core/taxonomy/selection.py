"""The fitted weights of the editorial selection models (key changes, notable issues): one versioned JSON file.

``selection_weights.json`` is written by ``python -m tools.editorial.fit_selection`` (a logistic regression fitted on the
sample's labelled days) and read here; the pipeline binds its weights as SQL parameters of mart_key_changes and
mart_notable_issues and never reads the labels themselves. Each model is a bias plus one weight per feature of
``int_selection_features``; an item's score is bias + sum(weight * value), its parts stay explainable.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

DEFAULT_WEIGHTS = Path(str(resources.files("vllm_digest.core.taxonomy") / "selection_weights.json"))
# the sections a selection model chooses for, and the prefix of their SQL parameters
SECTIONS = {"key_changes": "key", "notable": "notable"}
# the features int_selection_features writes (a weight for any other name is a typo, refused at load)
FEATURES = (
    "merged", "opened", "still_open", "closed_unmerged", "is_issue", "tag_substantive", "tag_bug", "tag_process",
    "tag_vendor", "rfc", "rfc_implementation", "revert", "draft", "ready", "linked", "title_words", "size_log",
    "typo_sized", "first_time", "maintainer", "author_busy", "topics_substantive", "topic_rising", "risk_topic",
    "comments_log", "focus", "opened_and_merged", "title_new", "title_perf", "title_low_level", "title_hardware",
    "title_model", "title_failure", "hours_listed", "ci_failure", "title_quantified", "body_figures", "test_plan",
    "fixes_issue", "reviews_log",
)


class SelectionWeightsError(ValueError):
    """The weights file is missing or malformed; the message names the file and the value."""


@dataclass(frozen=True)
class SelectionModel:
    section: str
    bias: float
    limit: int  # how many items the section cites at most
    weights: dict[str, float]


@dataclass(frozen=True)
class SelectionWeights:
    path: Path
    version: int
    models: dict[str, SelectionModel]
    provenance: dict

    def params(self) -> dict:
        """The SQL parameters: per section ``<prefix>_features``, ``_weights``, ``_bias`` and ``_limit``."""
        out: dict = {}
        for section, prefix in SECTIONS.items():
            m = self.models[section]
            names = sorted(m.weights)
            out[f"{prefix}_features"] = names
            out[f"{prefix}_weights"] = [m.weights[n] for n in names]
            out[f"{prefix}_bias"] = m.bias
            out[f"{prefix}_limit"] = m.limit
        return out

    @property
    def fingerprint(self) -> str:
        """The version and a digest of the weights: changes whenever a weight, bias or limit does."""
        digest = hashlib.sha256(json.dumps(self.params(), sort_keys=True).encode()).hexdigest()
        return f"w{self.version}-{digest[:12]}"


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SelectionWeightsError(f"{where}: {value!r} is not a finite number")
    return float(value)


def load_selection_weights(path: Path | str = DEFAULT_WEIGHTS) -> SelectionWeights:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SelectionWeightsError(f"selection weights file {str(path)!r} does not exist "
                                    "(write it with `python -m tools.editorial.fit_selection`)") from None
    except json.JSONDecodeError as exc:
        raise SelectionWeightsError(f"{path}: not valid JSON (line {exc.lineno}): {exc.msg}") from None
    if not isinstance(data, dict):
        raise SelectionWeightsError(f"{path}: expected an object, got {type(data).__name__}")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SelectionWeightsError(f"{path}: 'version' {version!r} is not a positive integer")
    models_in = data.get("models")
    if not isinstance(models_in, dict):
        raise SelectionWeightsError(f"{path}: 'models' is missing or not an object")
    models = {}
    for section in SECTIONS:
        m = models_in.get(section)
        where = f"{path}: models.{section}"
        if not isinstance(m, dict):
            raise SelectionWeightsError(f"{where} is missing or not an object")
        limit = m.get("limit")
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 20:
            raise SelectionWeightsError(f"{where}.limit {limit!r} is not an integer from 1 to 20")
        weights = m.get("weights")
        if not isinstance(weights, dict) or not weights:
            raise SelectionWeightsError(f"{where}.weights is missing or empty")
        unknown = sorted(set(weights) - set(FEATURES))
        if unknown:
            raise SelectionWeightsError(f"{where}.weights: unknown feature(s) {unknown}; "
                                        f"int_selection_features writes {list(FEATURES)}")
        models[section] = SelectionModel(
            section, _number(m.get("bias"), f"{where}.bias"), limit,
            {k: _number(v, f"{where}.weights.{k}") for k, v in weights.items()},
        )
    provenance = data.get("provenance", {})
    return SelectionWeights(path, version, models, provenance if isinstance(provenance, dict) else {})
