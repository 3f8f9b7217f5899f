"""Receiver URL rules (docs/reference/webhooks.md §4.2, §6): every refused class."""

from __future__ import annotations

import pytest

from gatehouse.outbound import url_safety
from gatehouse.outbound.url_safety import UnsafeUrl, address_refusal, check_url, check_url_shape


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://hooks.example.com/in", "https"),
        ("ftp://hooks.example.com/in", "https"),
        ("https://hooks.example.com:8443/in", "port 443"),
        ("https://user:pw@hooks.example.com/in", "user information"),
        ("https://user@hooks.example.com/in", "user information"),
        ("https://hooks.example.com/in#frag", "fragment"),
        ("https://hooks.example.com/in#", "fragment"),
        ("https://203.0.113.7/in", "IP address"),
        ("https://8.8.8.8/in", "IP address"),
        ("https://[2001:4860::8888]/in", "IP address"),
        ("https://2130706433/in", "IP address"),
        ("https://0x7f.1/in", "IP address"),
        ("https://localhost/in", "public"),
        ("https://printer.local/in", "public"),
        ("https://hooks/in", "fully qualified"),
        ("https://hooks.example.test/in", "reserved"),
        ("https:///in", "host"),
        ("https://bad_host.example.com/in", "hostname"),
        ("https://hooks.example.com/ in", "whitespace"),
        ("", "non-empty"),
    ],
)
def test_shape_refusals_say_why(url: str, why: str) -> None:
    with pytest.raises(UnsafeUrl, match=why):
        check_url_shape(url, allow_private=False)


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/in",
        "https://hooks.example.com:443/in?x=1",
        "https://HOOKS.Example.com./in",
    ],
)
def test_shape_accepts_public_https_names(url: str) -> None:
    check_url_shape(url, allow_private=False)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/in",
        "http://localhost:9000/x",
        "https://10.0.0.5/in",
        "http://[::1]:81/",
    ],
)
def test_allow_private_relaxes_scheme_literal_and_port(url: str) -> None:
    check_url_shape(url, allow_private=True)
    with pytest.raises(UnsafeUrl):
        check_url_shape(url, allow_private=False)


@pytest.mark.parametrize(
    "url",
    ["http://u:p@127.0.0.1:8080/in", "http://127.0.0.1:8080/in#x", "ftp://127.0.0.1/x"],
)
def test_allow_private_still_refuses_userinfo_fragment_scheme(url: str) -> None:
    with pytest.raises(UnsafeUrl):
        check_url_shape(url, allow_private=True)


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("0.0.0.0", "unspecified"),
        ("192.0.2.1", "documentation"),
        ("198.51.100.1", "documentation"),
        ("203.0.113.1", "documentation"),
        ("198.18.0.1", "benchmarking"),
        ("255.255.255.255", "reserved"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("::ffff:127.0.0.1", "IPv4-mapped"),
        ("::ffff:8.8.8.8", "IPv4-mapped"),
        ("64:ff9b::a00:1", "NAT64"),
        ("fd00::1", "ULA"),
        ("fc00::1", "ULA"),
        ("fe80::1", "link-local"),
        ("ff02::1", "multicast"),
        ("2001:db8::1", "documentation"),
        ("2002:a00:1::1", "6to4"),
    ],
)
def test_non_public_addresses_are_refused(address: str, why: str) -> None:
    refusal = address_refusal(address)
    assert refusal is not None
    assert why.lower() in refusal.lower()


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert address_refusal(address) is None


async def test_name_resolving_to_private_address_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def fake_resolve(host: str, port: int) -> list[str]:
        assert host == "rebind.example.com"
        return ["93.184.216.34", "10.0.0.7"]

    monkeypatch.setattr(url_safety, "resolve_host", fake_resolve)
    with pytest.raises(UnsafeUrl, match="non-public"):
        await check_url("https://rebind.example.com/in", allow_private=False)


async def test_name_resolving_to_public_addresses_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    async def fake_resolve(host: str, port: int) -> list[str]:
        assert port == 443
        return ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]

    monkeypatch.setattr(url_safety, "resolve_host", fake_resolve)
    checked = await check_url("https://hooks.example.com/in", allow_private=False)
    assert checked.host == "hooks.example.com"
    assert checked.addresses[0] == "93.184.216.34"


async def test_name_that_does_not_resolve_is_refused() -> None:
    # `.invalid` never resolves (RFC 6761); allow_private skips the public-name rules.
    with pytest.raises(UnsafeUrl, match="does not resolve"):
        await check_url("http://nothing-here.invalid/in", allow_private=True)
