// The program's setup forms: the search box over each long list of
// checkboxes filters it as one types, and, on an earning rule's form, the
// live preview of what the sample sale earns with the rule as it stands.
// Both are extras: without this script the box's Find button posts the
// form for the list narrowed by the server, and the Preview button posts
// the form.
(function () {
  "use strict";
  document.querySelectorAll("input[data-filter]").forEach(function (box) {
    var list = document.getElementById(box.getAttribute("data-filter"));
    if (!list) return;
    box.hidden = false;
    // Find is not needed while the list filters itself, unless the
    // server narrowed it (a box filled on load): Find then brings the
    // whole list back.
    var find = document.getElementById(box.getAttribute("data-find"));
    if (find && box.defaultValue === "") find.hidden = true;
    box.addEventListener("input", function () {
      var q = box.value.trim().toLowerCase();
      list.querySelectorAll(".pick-item").forEach(function (item) {
        item.hidden = q !== "" && item.textContent.toLowerCase().indexOf(q) < 0 && !item.querySelector("input").checked;
      });
    });
    // Enter in the filter must not post the form.
    box.addEventListener("keydown", function (e) { if (e.key === "Enter") e.preventDefault(); });
  });

  // Enter in a customers search box finds, as its button does.
  document.querySelectorAll("input[data-find]:not([data-filter])").forEach(function (box) {
    var button = document.getElementById(box.getAttribute("data-find"));
    box.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && button) { e.preventDefault(); button.click(); }
    });
  });

  var form = document.querySelector("form[data-preview]");
  var out = document.getElementById("rule-preview");
  if (!form || !out || !window.fetch) return;
  var timer = 0, asked = 0;
  function preview() {
    var data = new URLSearchParams(new FormData(form));
    data.set("preview", "1");
    data.set("fragment", "1");
    var n = ++asked;
    out.setAttribute("aria-busy", "true");
    fetch(form.action, {method: "POST", body: data, credentials: "same-origin"}).then(function (r) {
      return r.ok ? r.text() : Promise.reject(r.status);
    }).then(function (html) {
      if (n !== asked) return;
      out.innerHTML = html;
      out.removeAttribute("aria-busy");
      showBar();
    }).catch(function () {
      if (n === asked) out.removeAttribute("aria-busy");
    });
  }
  // On a narrow screen the sample is below the whole form: a bar at the
  // bottom keeps the points in sight while the rule is edited.
  var bar = document.getElementById("preview-bar");
  function showBar() {
    if (!bar) return;
    var pts = out.querySelector("#preview-points");
    bar.querySelector("span").textContent = pts ? pts.parentNode.textContent.trim() : "Not evaluated";
    bar.hidden = false;
    document.body.classList.add("with-bar");
  }
  function later(e) {
    if (e && e.target && e.target.hasAttribute("data-filter")) return;
    clearTimeout(timer);
    timer = setTimeout(preview, 300);
  }
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  form.addEventListener("submit", function (e) {
    var by = e.submitter;
    if (by && by.name === "preview") {
      e.preventDefault();
      clearTimeout(timer);
      preview();
    }
  });
})();
