// /docs (docs/api-reference.md §2): what Swagger UI's markup lacks for assistive technology,
// added as it renders: names for its unnamed controls, heading levels without jumps, and
// links out of buttons (no control nested in another).
(function () {
  "use strict";
  function name(selector, label) {
    document.querySelectorAll(selector).forEach(function (el) {
      if (!el.getAttribute("aria-label")) el.setAttribute("aria-label", label);
    });
  }
  function headings() {
    var previous = 0;
    document.querySelectorAll("h1, h2, h3, h4, h5, h6").forEach(function (h) {
      var own = Number(h.tagName.charAt(1));
      var level = previous === 0 ? own : Math.min(own, previous + 1);
      if (level !== own) {
        h.setAttribute("role", "heading");
        h.setAttribute("aria-level", String(level));
      } else if (h.getAttribute("aria-level")) {
        h.removeAttribute("role");
        h.removeAttribute("aria-level");
      }
      previous = level;
    });
  }
  function unnest() {
    // A deep link inside an operation's summary button: the button already opens it.
    document.querySelectorAll("button a[href], button [tabindex]").forEach(function (el) {
      if (el.tagName === "A") {
        var span = document.createElement("span");
        span.className = el.className;
        while (el.firstChild) span.appendChild(el.firstChild);
        el.replaceWith(span);
      } else {
        el.removeAttribute("tabindex");
      }
    });
  }
  function mend() {
    name("#servers", "Server");
    name("select:not([aria-label]):not([id])", "Choose");
    name(".close-modal", "Close");
    name("button.copy-to-clipboard", "Copy to clipboard");
    name(".model-box-control", "Show or hide the schema");
    unnest();
    headings();
  }
  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      mend();
    });
  }).observe(document.body, { childList: true, subtree: true });
  mend();
})();
