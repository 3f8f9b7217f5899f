"""A tenant's branding rules (docs/reference/portal.md, "Branding"): the display name, the
accent colour and the colours the portal derives from it so that text stays readable.

Contrast is the WCAG 2 ratio of relative luminances. The accent fills the top bar; its text
is white when white reaches 4.5:1 on it, otherwise black (one of the two always does). Links
and buttons on the light page use the accent darkened until it reaches 4.5:1 on the page's
lightest and darkest backgrounds, so any accent a tenant picks keeps the portal readable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gatehouse.errors import invalid_argument

MAX_DISPLAY_NAME = 100
DEFAULT_ACCENT = "#1f5f8b"
WHITE = "#ffffff"
DARK_INK = "#000000"
# The backgrounds links and buttons sit on in the portal's stylesheet (paper and wash).
PAGE_BACKGROUNDS = ("#ffffff", "#f4f6f9")
READABLE = 4.5
_HEX = re.compile(r"#[0-9a-fA-F]{6}")


@dataclass(frozen=True, slots=True)
class Palette:
    """The colours of one accent: the bar, the text on it, and links/buttons on the page."""

    accent: str
    accent_ink: str
    link: str

    @property
    def key(self) -> str:
        """The accent without `#`, as the theme stylesheet's path names it."""
        return self.accent[1:]


def check_display_name(value: object) -> str | None:
    """Trimmed, 1 to 100 characters, no control characters; null or empty clears it."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid_argument("displayName must be a string or null.", "displayName")
    text = " ".join(value.split())
    if not text:
        return None
    if len(text) > MAX_DISPLAY_NAME:
        raise invalid_argument(
            f"displayName is at most {MAX_DISPLAY_NAME} characters.", "displayName", "too long"
        )
    return text


def check_accent_color(value: object) -> str | None:
    """`#rrggbb` (stored lower-case); null clears it."""
    if value is None:
        return None
    if not isinstance(value, str) or not _HEX.fullmatch(value.strip()):
        raise invalid_argument(
            "accentColor must be a colour written #rrggbb.", "accentColor", "not #rrggbb"
        )
    return value.strip().lower()


def parse_hex(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def to_hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(color: str) -> float:
    r, g, b = (_channel(v) for v in parse_hex(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two colours, from 1 to 21."""
    a, b = luminance(first), luminance(second)
    light, dark = max(a, b), min(a, b)
    return (light + 0.05) / (dark + 0.05)


def _darkened(color: str, backgrounds: tuple[str, ...]) -> str:
    """`color` mixed with black in small steps until it reads on every background."""
    rgb = parse_hex(color)
    for step in range(0, 101):
        keep = 1 - step / 100
        candidate = to_hex((round(rgb[0] * keep), round(rgb[1] * keep), round(rgb[2] * keep)))
        if all(contrast(candidate, bg) >= READABLE for bg in backgrounds):
            return candidate
    return "#000000"


def palette(accent: str | None) -> Palette:
    """The portal's colours for a tenant's accent (the default accent when it has none)."""
    color = accent or DEFAULT_ACCENT
    ink = WHITE if contrast(color, WHITE) >= READABLE else DARK_INK
    return Palette(accent=color, accent_ink=ink, link=_darkened(color, PAGE_BACKGROUNDS))
