// An automation's form: "Add a step" shows the next step in place, where
// without this script it posts the form and shows it again with one more.
(function () {
  "use strict";
  var button = document.getElementById("add-step");
  var shown = document.getElementById("shown");
  if (!button || !shown) return;
  button.addEventListener("click", function (e) {
    var next = document.querySelector(".steps > .step[hidden]");
    if (!next) return;
    e.preventDefault();
    next.hidden = false;
    shown.value = String(document.querySelectorAll(".steps > .step:not([hidden])").length);
    if (!document.querySelector(".steps > .step[hidden]")) button.hidden = true;
    var first = next.querySelector('input[type="radio"]:not([value=""])');
    if (first) first.focus();
  });
})();
