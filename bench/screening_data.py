"""Generated watchlists and a labelled set of name variants for bench/screening.py.

No data is downloaded. People's names are built from syllables, so a million of them are
mostly distinct (as in a real consolidated list), and written in the script of their
origin: Latin (a share with diacritics), Cyrillic and Greek (the same syllables in those
alphabets), plus Arabic and Chinese names from small pools of real given and family names
(namesakes are common there, as in real lists). Companies are a made-up stem, a sector word
and a legal form. About a tenth of the people are PEPs (`role.pep`), the rest sanctioned.

The labelled set: for listed entities drawn at random, the name as an applicant would type
it (positives) — Latin for a name listed in another script, diacritics dropped, the words
in another order, the middle name left out, one letter mistyped, the company's legal form
spelt another way; and names built from syllables and pools the list never uses
(negatives: any hit on them is a false positive).
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

SYLLABLES = [
    "ba", "bo", "da", "de", "di", "ga", "go", "ka", "ki", "ko", "la", "le", "li", "lo", "ma",
    "me", "mi", "mo", "na", "ne", "ni", "no", "pa", "pe", "ra", "re", "ri", "ro", "sa", "se",
    "si", "so", "ta", "te", "ti", "to", "va", "ve", "vi", "vo", "za", "zo", "lan", "mir",
    "dan", "ron", "tin", "vel", "kor", "sen",
]  # fmt: skip
# The same syllables in Cyrillic and Greek letters (data generation only).
LETTERS = {
    "cyrillic": dict(zip("abdegiklmnoprstvz", "абдегиклмнопрствз", strict=True)),
    "greek": dict(zip("abdegiklmnoprstvz", "αβδεγικλμνοπρστβζ", strict=True)),
}
# Syllables only the negatives use (the list never does).
NEGATIVE_SYLLABLES = ["qu", "xu", "jy", "wo", "fy", "hux", "qel", "wyn"]
ACCENTED = {"a": "á", "e": "é", "i": "í", "o": "ö", "u": "ü"}
ARABIC_GIVEN = [
    ("Mohammed", "محمد"),
    ("Ahmed", "أحمد"),
    ("Ali", "علي"),
    ("Hassan", "حسن"),
    ("Hussein", "حسين"),
    ("Omar", "عمر"),
    ("Khalid", "خالد"),
    ("Youssef", "يوسف"),
]
ARABIC_FAMILY = [
    ("Haddad", "حداد"),
    ("Nasser", "ناصر"),
    ("Mansour", "منصور"),
    ("Saleh", "صالح"),
    ("Hamdan", "حمدان"),
    ("Karim", "كريم"),
]
CHINESE_FAMILY = [
    ("Wang", "王"),
    ("Li", "李"),
    ("Zhang", "张"),
    ("Liu", "刘"),
    ("Chen", "陈"),
    ("Yang", "杨"),
    ("Zhao", "赵"),
    ("Huang", "黄"),
]
CHINESE_GIVEN = [
    ("Wei", "伟"),
    ("Jing", "静"),
    ("Lei", "磊"),
    ("Min", "敏"),
    ("Jun", "军"),
    ("Yan", "燕"),
    ("Hua", "华"),
    ("Qiang", "强"),
]
SECTORS = ["Trading", "Shipping", "Holding", "Energy", "Mining", "Logistics", "Capital"]
# A legal form as listed, and as an applicant may spell it.
FORMS = [("LLC", "Limited Liability Company"), ("Ltd", "Limited"), ("JSC", "Joint Stock Company"),
         ("Company", "Co."), ("Inc", "Incorporated"), ("OOO", "LLC")]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Listed:
    """A generated entity and the Latin spelling an applicant would use."""

    entity: dict[str, Any]
    latin: str
    kind: str  # person or company
    script: str


def _word(rng: random.Random, parts: int, pool: list[str] = SYLLABLES) -> str:
    return "".join(rng.choice(pool) for _ in range(parts))


def _in_script(word: str, script: str) -> str:
    return "".join(LETTERS[script].get(c, c) for c in word) if script in LETTERS else word


def _accented(word: str, rng: random.Random) -> str:
    spots = [i for i, c in enumerate(word) if c in ACCENTED]
    if not spots:
        return word
    i = rng.choice(spots)
    return word[:i] + ACCENTED[word[i]] + word[i + 1 :]


def _person(n: int, rng: random.Random) -> Listed:
    roll = rng.random()
    topics = ["role.pep"] if rng.random() < 0.1 else ["sanction"]
    if roll < 0.05:
        given, father, family = (rng.choice(ARABIC_GIVEN), rng.choice(ARABIC_GIVEN),
                                 rng.choice(ARABIC_FAMILY))  # fmt: skip
        name, latin, script = (f"{given[1]} {father[1]} {family[1]}",
                               f"{given[0]} {father[0]} {family[0]}", "arabic")  # fmt: skip
    elif roll < 0.10:
        family, given = rng.choice(CHINESE_FAMILY), rng.choice(CHINESE_GIVEN)
        name, latin, script = family[1] + given[1], f"{family[0]} {given[0]}", "chinese"
    else:
        words = [_word(rng, rng.choice((2, 3))) for _ in range(3)]
        latin = " ".join(w.capitalize() for w in words)
        script = "cyrillic" if roll < 0.25 else "greek" if roll < 0.30 else "latin"
        if script == "latin" and rng.random() < 0.3:
            name = " ".join(_accented(w, rng).capitalize() for w in words)
        else:
            name = " ".join(_in_script(w, script).capitalize() for w in words)
    props: dict[str, list[str]] = {"name": [name], "topics": topics}
    if rng.random() < 0.5:
        props["birthDate"] = [f"{rng.randint(1940, 2000)}-{rng.randint(1, 12):02d}-01"]
    entity = {"id": f"P-{n}", "schema": "Person", "properties": props}
    return Listed(entity, latin, "person", script)


def _company(n: int, rng: random.Random) -> Listed:
    stem = _word(rng, 3).capitalize()
    form = rng.choice(FORMS)
    name = f"{stem} {rng.choice(SECTORS)} {form[0]}"
    entity = {"id": f"C-{n}", "schema": "Company",
              "properties": {"name": [name], "topics": ["sanction"]}}  # fmt: skip
    return Listed(entity, name, "company", "latin")


def generate(count: int, seed: int = 1) -> Iterator[Listed]:
    """`count` entities: three in ten companies, the rest people."""
    rng = random.Random(seed)
    for n in range(count):
        yield _company(n, rng) if rng.random() < 0.3 else _person(n, rng)


def write(path: str, count: int, sample_every: int) -> list[Listed]:
    """Write the list; return every `sample_every`-th entity for the labelled set."""
    sample: list[Listed] = []
    with open(path, "wb") as out:
        for n, listed in enumerate(generate(count)):
            out.write(orjson.dumps(listed.entity) + b"\n")
            if n % sample_every == 0:
                sample.append(listed)
    return sample


def _plain(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 5:
        return word
    i = rng.randrange(1, len(word) - 2)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def variant(listed: Listed, rng: random.Random) -> tuple[str, str]:
    """(what the applicant types, how it differs) for a listed entity."""
    if listed.kind == "company":
        for listed_form, other in FORMS:
            if listed.latin.endswith(" " + listed_form):
                return listed.latin[: -len(listed_form)] + other, "legal form"
        return listed.latin.upper(), "case"
    words = _plain(listed.latin).split()
    if listed.script != "latin":
        return " ".join(words), f"{listed.script} listed, Latin applied"
    kind = rng.choice(("diacritics", "order", "middle", "typo"))
    if kind == "order":
        words = [words[-1], *words[:-1]]
    elif kind == "middle" and len(words) > 2:
        words = [words[0], words[-1]]
    elif kind == "typo":
        words[-1] = _typo(words[-1], rng)
    return " ".join(words), kind


def negatives(count: int, seed: int = 99) -> list[tuple[str, str]]:
    """Names the list does not hold: people and companies from syllables it never uses."""
    rng = random.Random(seed)
    out = []
    for n in range(count):
        words = [_word(rng, 2, NEGATIVE_SYLLABLES) for _ in range(2)]
        if n % 3 == 0:
            out.append(("company", f"{words[0].capitalize()} {rng.choice(SECTORS)} Ltd"))
        else:
            out.append(("person", " ".join(w.capitalize() for w in words)))
    return out
