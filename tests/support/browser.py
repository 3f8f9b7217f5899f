"""What a test client sends to look like a browser on the portal's or dashboard's page."""

from __future__ import annotations

# A browser sends its page's origin on every unsafe request (docs/reference/portal.md §6);
# the test apps' PUBLIC_URL is http://testserver.
SAME_ORIGIN = {"Origin": "http://testserver"}
