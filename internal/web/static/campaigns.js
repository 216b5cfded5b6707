// A campaign's form shows its message as members receive it while it is
// written: a moment after each change the form is posted to the preview
// endpoint (nothing is saved) and its answer replaces the preview. The
// buttons under a message insert a personal field where the cursor is.
// Without this script the "Update the preview" button posts the form and
// shows the same preview, and personal fields are typed.
(function () {
  "use strict";
  var form = document.querySelector("form[data-preview]");
  if (!form) return;

  // The personal fields' buttons: each serves its box, and the box named
  // by data-also while that one had the cursor last.
  document.querySelectorAll(".tokens").forEach(function (bar) {
    var main = document.getElementById(bar.getAttribute("data-for"));
    var also = document.getElementById(bar.getAttribute("data-also") || "");
    if (!main) return;
    var target = main;
    [main, also].forEach(function (box) {
      if (box) box.addEventListener("focus", function () { target = box; });
    });
    bar.hidden = false;
    bar.addEventListener("click", function (e) {
      var b = e.target.closest("button[data-token]");
      if (!b) return;
      var token = b.getAttribute("data-token");
      var start = target.selectionStart, end = target.selectionEnd;
      if (typeof start !== "number") start = end = target.value.length;
      target.value = target.value.slice(0, start) + token + target.value.slice(end);
      target.focus();
      target.setSelectionRange(start + token.length, start + token.length);
      target.dispatchEvent(new Event("input", {bubbles: true}));
    });
  });

  var out = document.getElementById("campaign-preview");
  if (!out || !window.fetch) return;
  var timer = 0, asked = 0;
  function preview() {
    var data = new URLSearchParams(new FormData(form));
    var n = ++asked;
    out.setAttribute("aria-busy", "true");
    fetch(form.getAttribute("data-preview"), {method: "POST", body: data, credentials: "same-origin"}).then(function (r) {
      return r.ok ? r.text() : Promise.reject(r.status);
    }).then(function (html) {
      if (n !== asked) return;
      out.innerHTML = html;
      out.removeAttribute("aria-busy");
    }).catch(function () {
      if (n === asked) out.removeAttribute("aria-busy");
    });
  }
  function later() {
    clearTimeout(timer);
    timer = setTimeout(preview, 300);
  }
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  // The preview's button, and Enter in a box, preview in place.
  form.addEventListener("submit", function (e) {
    if (e.submitter && e.submitter.name === "preview") {
      e.preventDefault();
      clearTimeout(timer);
      preview();
    }
  });
  var button = document.getElementById("preview-button");
  if (button) button.hidden = true;
})();
