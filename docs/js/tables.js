// A table wider than its column scrolls sideways inside its box; on a phone nothing else says
// so. Its box is marked `overflows` while it does, and the stylesheet shows a hint above it
// (docs/css/site.css). Checked on every page the theme shows (its instant navigation swaps the
// page without a load event: `document$` emits for each) and again when the window is resized.
// A name in a results cell with a word of 28 characters or more (a kernel's, an operator's) is
// marked `long`: only such a name may break inside a word.
(function () {
  function mark() {
    document.querySelectorAll(".md-typeset .results td code").forEach(function (code) {
      code.classList.toggle("long", /\S{28,}/.test(code.textContent));
    });
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
