// A segment's form counts the customers it selects while it is edited:
// a moment after each change the form is posted to the count endpoint
// (nothing is saved) and its answer replaces the count. Without this
// script the Count button posts the form and shows the same count.
(function () {
  "use strict";
  // A filter box over a long list of tags: what it holds narrows the
  // list, ticked tags always shown.
  document.querySelectorAll("input[data-filter]").forEach(function (box) {
    var list = document.getElementById(box.getAttribute("data-filter"));
    if (!list) return;
    box.hidden = false;
    box.addEventListener("input", function () {
      var q = box.value.trim().toLowerCase();
      list.querySelectorAll(".pick-item").forEach(function (item) {
        item.hidden = q !== "" && item.textContent.toLowerCase().indexOf(q) < 0 && !item.querySelector("input").checked;
      });
    });
    box.addEventListener("keydown", function (e) { if (e.key === "Enter") e.preventDefault(); });
  });

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
    if (e && e.target && (e.target.name === "name" || e.target.hasAttribute("data-filter"))) return;
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
