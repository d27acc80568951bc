"""HTML reports that work offline: no stylesheet, script, font or image is fetched from anywhere.

copydetect's report template loads Bootstrap from a CDN; the review is
private and may be read on a machine without a network (or where a request
to a CDN would tell a third party that a review is being read).
:func:`make_offline` removes every tag that loads something from an
external URL and inlines the little of Bootstrap the report uses (its grid,
buttons, tables, and the collapsible sections with a few lines of script).
"""

from __future__ import annotations

import re

#: An attribute that makes the browser fetch from another host (http:, https: or protocol-relative).
EXTERNAL = re.compile(r"""\b(?:href|src)\s*=\s*["']?\s*(?:https?:)?//[^"'\s>]*""", re.I)
_LINK = re.compile(r"<link\b[^>]*\bhref\s*=\s*[\"']?\s*(?:https?:)?//[^>]*>", re.I)
_SCRIPT = re.compile(r"<script\b[^>]*\bsrc\s*=\s*[\"']?\s*(?:https?:)?//[^>]*>\s*</script>", re.I)

STYLE = """<style>
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 1em; color: #212529; }
  .container { max-width: 1400px; margin: 0 auto; padding: 0 .75rem; }
  .d-flex { display: flex; } .justify-content-center { justify-content: center; }
  .row { display: flex; flex-wrap: wrap; gap: 1em; } .col { flex: 1 0 0; min-width: 0; }
  .btn { display: inline-block; padding: .3rem .7rem; border: 1px solid #6c757d; border-radius: .25rem;
         background: #6c757d; color: #fff; cursor: pointer; font-size: .9rem; }
  .collapse:not(.show) { display: none; }
  .card { border: 1px solid #dee2e6; border-radius: .25rem; } .card-body { padding: 1rem; }
  .table { width: 100%; border-collapse: collapse; } .table td, .table th { padding: .25rem .5rem; border-top: 1px solid #dee2e6; }
  .table-striped tbody tr:nth-of-type(odd) { background: #f2f2f2; }
  pre { white-space: pre-wrap; font-size: .85rem; }
</style>
"""
SCRIPT = """<script>
  document.querySelectorAll('[data-bs-toggle="collapse"]').forEach(function (button) {
    button.addEventListener('click', function () {
      var target = document.querySelector(button.getAttribute('data-bs-target'));
      if (target) { target.classList.toggle('show'); }
    });
  });
</script>
"""


def make_offline(html: str) -> str:
    """``html`` without the tags that load from an external URL, with :data:`STYLE` and :data:`SCRIPT` inlined."""
    html = _SCRIPT.sub("", _LINK.sub("", html))
    html = html.replace("</head>", STYLE + "</head>", 1) if "</head>" in html else STYLE + html
    return html.replace("</body>", SCRIPT + "</body>", 1) if "</body>" in html else html + SCRIPT


def external_urls(html: str) -> list[str]:
    """Every attribute of ``html`` that would fetch from another host ([] when it is offline)."""
    return EXTERNAL.findall(html)
