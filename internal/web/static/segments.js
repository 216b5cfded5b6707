// A segment's form counts the customers it selects while it is edited:
// a moment after each change the form is posted to the count endpoint
// (nothing is saved) and its answer replaces the count. Without this
// script the Count button posts the form and shows the same count.
(function () {
  "use strict";
  var form = document.querySelector("form[data-count]");
  var out = document.getElementById("segment-count");
  if (!form || !out || !window.fetch) return;
  var timer = 0, asked = 0;
  function count() {
    var data = new URLSearchParams(new FormData(form));
    var n = ++asked;
    out.setAttribute("aria-busy", "true");
    fetch(form.getAttribute("data-count"), {method: "POST", body: data, credentials: "same-origin"}).then(function (r) {
      return r.ok || r.status === 422 ? r.text() : Promise.reject(r.status);
    }).then(function (html) {
      if (n !== asked) return;
      out.innerHTML = html;
      out.removeAttribute("aria-busy");
    }).catch(function () {
      if (n === asked) out.removeAttribute("aria-busy");
    });
  }
  function later(e) {
    if (e && e.target && e.target.name === "name") return;
    clearTimeout(timer);
    timer = setTimeout(count, 300);
  }
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  // The Count button, and Enter in a box, count in place.
  form.addEventListener("submit", function (e) {
    if (e.submitter && e.submitter.name === "count") {
      e.preventDefault();
      clearTimeout(timer);
      count();
    }
  });
  var button = document.getElementById("count");
  if (button) button.hidden = true;
})();
