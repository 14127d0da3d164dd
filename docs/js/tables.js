// A table wider than its column scrolls sideways inside its box; on a phone nothing else says
// so. Its box is marked `overflows` while it does, and the stylesheet shows a hint above it
// (docs/css/site.css). Checked on every page the theme shows (its instant navigation swaps the
// page without a load event: `document$` emits for each) and again when the window is resized.
// A long name in a table cell (a kernel's, a config path) gets a <wbr> after each dot,
// underscore, slash, colon and comma, so it wraps between its parts; a run of 28 characters
// without one is marked `long` and may break anywhere (docs/css/site.css). A <wbr> is not text:
// a copied name stays whole.
(function () {
  function breakable(code) {
    if (code.dataset.wbr || code.children.length) return;
    code.dataset.wbr = "1";
    var text = code.textContent;
    if (!/\S{16,}/.test(text)) return;
    code.textContent = "";
    text.split(/(?<=[._\/:,])/).forEach(function (part, i) {
      if (i) code.appendChild(document.createElement("wbr"));
      code.appendChild(document.createTextNode(part));
    });
    code.classList.toggle("long", /[^\s._\/:,]{28,}/.test(text));
  }
  function mark() {
    document.querySelectorAll(".md-typeset td code").forEach(breakable);
    document.querySelectorAll(".md-typeset .md-typeset__scrollwrap").forEach(function (box) {
      box.classList.toggle("overflows", box.scrollWidth > box.clientWidth + 1);
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(mark);
  } else {
    document.addEventListener("DOMContentLoaded", mark);
  }
  window.addEventListener("resize", mark);
  // A table inside a closed detail block or a hidden tab has no width until it is shown.
  document.addEventListener("toggle", mark, true);
  document.addEventListener("change", mark);
})();
