// The wallet's card: the member's code changes every minute, so when it
// does the card asks for the next one and shows it. Without this script
// the card shows a link to load a new code.
(function () {
  "use strict";
  var img = document.getElementById("member-qr");
  if (!img || !window.fetch) return;
  var text = document.getElementById("member-code");
  function schedule(until) {
    var wait = Math.max(until * 1000 - Date.now(), 0) + 500;
    setTimeout(next, Math.min(wait, 60000));
  }
  function next() {
    fetch(img.getAttribute("data-source"), { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (c) {
        img.src = c.qr;
        if (text) text.textContent = c.code;
        schedule(c.until);
      })
      .catch(function () { setTimeout(next, 10000); });
  }
  schedule(Number(img.getAttribute("data-until")));
})();
