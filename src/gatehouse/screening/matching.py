"""What the matching library does for screening (docs/screening.md, "How names are matched").

Everything here runs where the `screening` extra is installed: FollowTheMoney reads and
checks the listed entities, rigour analyses names into blocking keys, and nomenklatura's
`logic-v2` matcher (the one OpenSanctions' yente service uses) scores a subject against a
listed entity. Nothing of it compares names by hand: the keys only choose which listed
entities the matcher looks at.

Blocking keys, for each name of an entity (or a subject): its words in Latin letters
(`normality.ascii_text`, ICU's transliteration: Cyrillic, Greek, Han … become Latin), their
Soundex codes (rigour's: `Romashka` and the transliterated `Romaska` share one), the words
run together (`Xi Jinping` and `习近平` → `xijinping`), and, for names in a script that does
not transliterate well, the name symbols rigour tags (a given name or surname in any script
maps to one Wikidata item: `صدام` and `Saddam` share one). Each key is prefixed by the kind
of party (`p` a person, `o` an organisation) and stored as a 63-bit hash.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from followthemoney import model
from followthemoney.exc import InvalidData
from followthemoney.proxy import EntityProxy
from nomenklatura.matching.logic_v2.model import LogicV2
from nomenklatura.matching.types import ScoringConfig
from normality import ascii_text
from rigour.names import NameTypeTag, SymbolCategory, analyze_names
from rigour.text import soundex
from rigour.text.translit import should_ascii

from gatehouse.domain.screening import SubjectKind
from gatehouse.screening.subjects import Subject

# The schemata screened, and the kinds of party each is screened as (CONTRACT-level rule in
# docs/screening.md "Lists"): a LegalEntity may be either.
SCREENED_SCHEMATA: Mapping[str, tuple[str, ...]] = {
    "Person": ("p",),
    "Company": ("o",),
    "Organization": ("o",),
    "LegalEntity": ("p", "o"),
}
KIND_PREFIX = {SubjectKind.PERSON: "p", SubjectKind.COMPANY: "o"}
NAME_PROPERTIES = ("name", "alias", "previousName", "weakAlias")
COUNTRY_PROPERTIES = ("nationality", "citizenship", "country", "jurisdiction")
_WORD = re.compile(r"[a-z0-9]+")
_ids = itertools.count()


class ListLineError(ValueError):
    """A line that is not a FollowTheMoney entity object."""


@dataclass(frozen=True, slots=True)
class ListedEntity:
    entity_id: str
    schema: str
    caption: str
    digest: str
    data: dict[str, Any]
    keys: frozenset[int]


def key_hash(key: str) -> int:
    """A key as a positive 63-bit integer (the index column is a signed BIGINT)."""
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") & 0x7FFF_FFFF_FFFF_FFFF


def _words(name: str) -> list[str]:
    return [word for word in _WORD.findall(ascii_text(name).lower()) if len(word) > 1]


def name_keys(names: Iterable[str], prefixes: Sequence[str], *, listed: bool = False) -> set[int]:
    """The blocking keys of some names of one party (see the module's docstring). A listed
    entity's names get symbol keys only when their script does not transliterate well
    (Arabic, Han …): the other scripts meet an applicant's spelling through their words,
    and name analysis is most of a load's time."""
    texts: set[str] = set()
    names = [name for name in names if name and name.strip()]
    for name in names:
        words = _words(name)
        texts.update(f"w:{word}" for word in words)
        texts.update(f"x:{soundex(word)}" for word in words if len(word) > 2)
        if 2 <= len(words) <= 4:
            texts.add("j:" + "".join(words))
    analysed_names = [n for n in names if not should_ascii(n)] if listed else names
    for prefix in prefixes if analysed_names else ():
        tag = NameTypeTag.PER if prefix == "p" else NameTypeTag.ORG
        for analysed in analyze_names(tag, analysed_names, phonetics=False, numerics=False):
            for span in analysed.spans:
                if span.symbol.category == SymbolCategory.NAME:
                    texts.add(f"s:{span.symbol}")
    return {key_hash(f"{prefix}|{text}") for prefix in prefixes for text in texts}


def read_line(line: bytes) -> ListedEntity | None:
    """One line of an `entities.ftm.json` file: the entity when its schema is screened, None
    for an entity of another schema; ListLineError when the line is no entity object."""
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise ListLineError("not JSON") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw["id"]:
        raise ListLineError("not an entity object with an id")
    properties = raw.get("properties", {})
    if not isinstance(properties, dict) or not all(
        isinstance(values, list) and all(isinstance(v, str) for v in values)
        for values in properties.values()
    ):
        raise ListLineError("properties must map names to lists of strings")
    try:
        proxy = model.get_proxy(raw, cleaned=False)
    except (InvalidData, TypeError, ValueError) as exc:
        raise ListLineError(str(exc) or "not a FollowTheMoney entity") from None
    prefixes = SCREENED_SCHEMATA.get(proxy.schema.name)
    if prefixes is None:
        return None
    data = proxy.to_dict()
    data.pop("referents", None)
    digest = hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()
    names = [name for prop in NAME_PROPERTIES for name in proxy.get(prop, quiet=True)]
    return ListedEntity(
        entity_id=proxy.id or raw["id"],
        schema=proxy.schema.name,
        caption=proxy.caption,
        digest=digest,
        data=data,
        keys=frozenset(name_keys(names, prefixes, listed=True)),
    )


def subject_keys(subject: Subject) -> set[int]:
    return name_keys([subject.name], (KIND_PREFIX[SubjectKind(subject.kind)],))


def _subject_proxy(subject: Subject) -> EntityProxy:
    proxy = model.make_entity("Person" if subject.kind == SubjectKind.PERSON else "Company")
    proxy.id = f"subject-{next(_ids)}"
    proxy.add("name", subject.name)
    if subject.birth_date:
        proxy.add("birthDate", subject.birth_date, quiet=True)
    if subject.nationality:
        proxy.add("nationality", subject.nationality, quiet=True)
    return proxy


def _listed_proxy(data: Mapping[str, Any]) -> EntityProxy:
    """The listed entity, with each name that is not in Latin letters also written in them
    (ICU's transliteration), so that a name listed only in Han characters meets its
    romanisation."""
    proxy = model.get_proxy(dict(data), cleaned=False)
    proxy.id = f"listed-{next(_ids)}"
    for prop in ("name", "alias"):
        for name in proxy.get(prop, quiet=True):
            latin = ascii_text(name)
            if latin and latin != name and not name.isascii():
                proxy.add("alias", latin, quiet=True)
    return proxy


@dataclass(frozen=True, slots=True)
class Score:
    score: float
    explanation: list[str]


_CONFIG = ScoringConfig.defaults()


def _score(subject: EntityProxy, listed: Mapping[str, Any]) -> Score:
    result = LogicV2.compare(subject, _listed_proxy(listed), _CONFIG)
    explanation = [
        f"{feature}: {found.detail}" if feature != "name_match" else str(found.detail)
        for feature, found in result.explanations.items()
        if found.score and found.detail
    ]
    return Score(max(0.0, min(1.0, float(result.score))), explanation)


def score(subject: Subject, listed: Mapping[str, Any]) -> Score:
    """The logic-v2 score of a subject against one listed entity, and why."""
    return _score(_subject_proxy(subject), listed)


def score_all(subject: Subject, listed: Sequence[Mapping[str, Any]]) -> list[Score]:
    proxy = _subject_proxy(subject)
    return [_score(proxy, data) for data in listed]


def score_each(
    pairs: Sequence[tuple[Subject, Sequence[Mapping[str, Any]]]],
) -> list[list[Score]]:
    """`score_all` of several subjects, in one call (one round trip to the matcher)."""
    return [score_all(subject, listed) for subject, listed in pairs]


def keys_of(subjects: Sequence[Subject]) -> list[set[int]]:
    return [subject_keys(subject) for subject in subjects]


def warm() -> None:
    """Load the matcher's name tables (seconds, once per process)."""
    score(Subject(SubjectKind.PERSON, "x", "Ivan Petrov"), {"schema": "Person", "id": "w"})
    subject_keys(Subject(SubjectKind.COMPANY, "x", "Warm Oil Company"))
