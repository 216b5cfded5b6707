// A running import's page follows it: every two seconds it reads where
// the import stands (/business/imports/{id}/progress) and updates its
// figures; once the import is over it loads the page again, with the
// rows refused. Without this script the Refresh link does the same, a
// page load at a time.
(function () {
  "use strict";
  var link = document.getElementById("refresh");
  if (!link || !link.dataset.progress || !window.fetch) return;
  var url = link.dataset.progress;
  function set(id, v) {
    var el = document.getElementById(id);
    if (el) el.textContent = String(v);
  }
  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (p) {
        if (!p.running) {
          window.location.replace(link.href);
          return;
        }
        set("import-status", p.status);
        set("rows-done", p.done);
        set("rows-failed", p.failed);
        set("rows-skipped", p.skipped);
        var bar = document.getElementById("progress");
        if (bar) { bar.value = p.progress; bar.textContent = p.progress + "%"; }
        set("progress-text", p.progress + "% of the rows settled.");
        setTimeout(poll, 2000);
      })
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 2000);
})();
