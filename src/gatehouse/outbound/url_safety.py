"""Receiver URL rules (docs/reference/webhooks.md §4.2, §6; docs/reference/settings.md
WEBHOOK_ALLOW_PRIVATE_URLS).

A receiver URL must be `https`, name a host by DNS name (no IP literal), use
port 443, carry no user information and no fragment, and every address its
name resolves to must be public. The check runs at registration, at update
and before every delivery; the delivery then connects to an address that
passed (see `transport.py`), so a second lookup (DNS rebinding) cannot move it.

WEBHOOK_ALLOW_PRIVATE_URLS (development and tests) relaxes the scheme, the
IP-literal, port and public-address rules; user information, fragments and
non-HTTP schemes stay refused.

`resolve_host` is the one place a name is looked up; tests replace it.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

__all__ = [
    "CheckedUrl",
    "UnsafeUrl",
    "address_refusal",
    "check_url",
    "check_url_shape",
    "resolve_host",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 2048
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
# Names that never denote a public receiver, refused before any lookup.
_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa")
_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_RESERVED_TLDS = frozenset({"test", "invalid", "example", "onion", "arpa"})

# Networks refused even when Python's `is_global` would let them through.
_REFUSED_NETWORKS: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...] = (
    (ipaddress.ip_network("0.0.0.0/8"), "unspecified network"),
    (ipaddress.ip_network("10.0.0.0/8"), "private"),
    (ipaddress.ip_network("100.64.0.0/10"), "carrier-grade NAT"),
    (ipaddress.ip_network("127.0.0.0/8"), "loopback"),
    (ipaddress.ip_network("169.254.0.0/16"), "link-local"),
    (ipaddress.ip_network("172.16.0.0/12"), "private"),
    (ipaddress.ip_network("192.0.0.0/24"), "IETF protocol assignments"),
    (ipaddress.ip_network("192.0.2.0/24"), "documentation"),
    (ipaddress.ip_network("192.88.99.0/24"), "6to4 relay anycast"),
    (ipaddress.ip_network("192.168.0.0/16"), "private"),
    (ipaddress.ip_network("198.18.0.0/15"), "benchmarking"),
    (ipaddress.ip_network("198.51.100.0/24"), "documentation"),
    (ipaddress.ip_network("203.0.113.0/24"), "documentation"),
    (ipaddress.ip_network("224.0.0.0/4"), "multicast"),
    (ipaddress.ip_network("240.0.0.0/4"), "reserved"),
    (ipaddress.ip_network("::/128"), "unspecified"),
    (ipaddress.ip_network("::1/128"), "loopback"),
    (ipaddress.ip_network("::ffff:0:0/96"), "IPv4-mapped IPv6"),
    (ipaddress.ip_network("::/96"), "IPv4-compatible IPv6"),
    (ipaddress.ip_network("64:ff9b::/96"), "NAT64"),
    (ipaddress.ip_network("64:ff9b:1::/48"), "NAT64 (local use)"),
    (ipaddress.ip_network("100::/64"), "discard-only"),
    (ipaddress.ip_network("2001::/23"), "IETF protocol assignments"),
    (ipaddress.ip_network("2001:db8::/32"), "documentation"),
    (ipaddress.ip_network("3fff::/20"), "documentation"),
    (ipaddress.ip_network("2002::/16"), "6to4"),
    (ipaddress.ip_network("fc00::/7"), "unique local (ULA)"),
    (ipaddress.ip_network("fe80::/10"), "link-local"),
    (ipaddress.ip_network("fec0::/10"), "site-local"),
    (ipaddress.ip_network("ff00::/8"), "multicast"),
)


class UnsafeUrl(ValueError):
    """A receiver URL the rules refuse; the message says why (safe to show the tenant)."""


@dataclass(frozen=True)
class CheckedUrl:
    """A URL that passed every rule, with the addresses its host resolved to."""

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]


def _parse(url: str) -> SplitResult:
    if not isinstance(url, str) or not url:
        raise UnsafeUrl("url must be a non-empty string")
    if len(url) > MAX_URL_LENGTH:
        raise UnsafeUrl(f"url must be at most {MAX_URL_LENGTH} characters")
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise UnsafeUrl("url must not contain whitespace or control characters")
    if "\\" in url:
        raise UnsafeUrl("url must not contain backslashes")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as exc:
        raise UnsafeUrl(f"url is not a valid URL: {exc}") from None
    return parts


def _ip_literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def _looks_numeric(host: str) -> bool:
    # `0x7f.1`, `2130706433`, `127.1`: forms some resolvers read as IPv4.
    return all(re.fullmatch(r"(0x[0-9a-f]*|[0-9]+)", label) for label in host.split(".") if label)


def check_url_shape(url: str, *, allow_private: bool) -> None:
    """Syntax rules of docs/reference/webhooks.md §4.2 / docs/reference/webhooks.md §6; raises
    `UnsafeUrl` saying why.
    """
    _checked_shape(url, allow_private)


# The rules are a pure function of the URL: a URL that passed once passes again (every
# delivery to an endpoint checks the same URL). A refusal raises and is not kept.
@functools.lru_cache(maxsize=4096)
def _checked_shape(url: str, allow_private: bool) -> None:
    parts = _parse(url)
    scheme = parts.scheme.lower()
    allowed_schemes = ("https", "http") if allow_private else ("https",)
    if scheme not in allowed_schemes:
        raise UnsafeUrl("url must use https")
    if "#" in url:
        raise UnsafeUrl("url must not contain a fragment")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise UnsafeUrl("url must not contain user information")
    host = (parts.hostname or "").lower()
    if not host:
        raise UnsafeUrl("url must name a host")
    literal = _ip_literal(host)
    if literal is not None or _looks_numeric(host):
        if not allow_private:
            raise UnsafeUrl("url must use a hostname, not an IP address")
        if literal is None:
            raise UnsafeUrl("url host is not a valid hostname")
        return _check_port(parts, allow_private)
    name = host[:-1] if host.endswith(".") else host
    if len(name) > 253 or not all(_LABEL.match(label) for label in name.split(".")):
        raise UnsafeUrl("url host is not a valid hostname")
    if not allow_private:
        if "." not in name:
            raise UnsafeUrl("url host must be a fully qualified public hostname")
        if name in _LOCAL_NAMES or name.endswith(_LOCAL_SUFFIXES):
            raise UnsafeUrl("url host must be public, not a local name")
        if name.rsplit(".", 1)[-1] in _RESERVED_TLDS:
            raise UnsafeUrl("url host uses a reserved top-level domain")
    _check_port(parts, allow_private)


def _check_port(parts: SplitResult, allow_private: bool) -> None:
    port = parts.port
    if port is not None and not allow_private and port != 443:
        raise UnsafeUrl("url must use port 443")
    if port == 0:
        raise UnsafeUrl("url port is not valid")


@functools.lru_cache(maxsize=4096)
def address_refusal(address: str) -> str | None:
    """Why `address` is not a public unicast address, or None when it is."""
    ip = _ip_literal(address.split("%", 1)[0])
    if ip is None:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        mapped = ip.ipv4_mapped
        if mapped is not None:
            return "IPv4-mapped IPv6"
    for network, why in _REFUSED_NETWORKS:
        if ip.version == network.version and ip in network:
            return why
    if (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    ):
        return "not a public address"
    return None


async def resolve_host(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (A and AAAA); raises `UnsafeUrl` when none.

    The single lookup point: tests replace this function to stub DNS.
    """
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise UnsafeUrl("url host does not resolve") from None
    addresses: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise UnsafeUrl("url host does not resolve")
    return addresses


@functools.lru_cache(maxsize=4096)
def _target(url: str, allow_private: bool) -> tuple[str, str, int, str | None]:
    """Scheme, host, port and IP literal (if the host is one) of a URL that passes the rules."""
    check_url_shape(url, allow_private=allow_private)
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port or (443 if scheme == "https" else 80)
    literal = _ip_literal(host)
    return scheme, host, port, None if literal is None else str(literal)


async def check_url(url: str, *, allow_private: bool, resolve: bool = True) -> CheckedUrl:
    """Every rule: shape, then (unless `resolve` is false) the resolved addresses.

    With `allow_private` any address is acceptable; the name must still resolve
    when `resolve` is true (a delivery needs an address to connect to).
    """
    scheme, host, port, literal = _target(url, allow_private)
    if literal is not None:
        addresses = [literal]
    elif not resolve:
        return CheckedUrl(url=url, scheme=scheme, host=host, port=port, addresses=())
    else:
        addresses = await resolve_host(host, port)
    if not allow_private:
        for address in addresses:
            why = address_refusal(address)
            if why is not None:
                raise UnsafeUrl(f"url host resolves to a non-public address ({why})")
    return CheckedUrl(url=url, scheme=scheme, host=host, port=port, addresses=tuple(addresses))
