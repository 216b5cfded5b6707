// The counter's sale: a SKU typed or scanned (a scanner types it and
// presses Enter) adds a line, or a unit to the line of that SKU, without
// a page load; Enter there never submits the sale. Without this script
// the form's Add button does the same with a page load.
(function () {
  "use strict";
  var scan = document.getElementById("sale-sku");
  var list = document.getElementById("sale-lines");
  var tpl = document.getElementById("sale-line-template");
  if (!scan || !list || !tpl || !tpl.content) return;
  var made = 0;
  function add(sku) {
    var lines = list.querySelectorAll("input[name=item_sku]");
    for (var i = 0; i < lines.length; i++) {
      if (lines[i].value.trim() === sku) {
        var qty = lines[i].closest("li").querySelector("input[name=item_qty]");
        qty.value = String((parseInt(qty.value, 10) || 0) + 1);
        return;
      }
    }
    var line = tpl.content.firstElementChild.cloneNode(true);
    made++;
    line.querySelectorAll("[id]").forEach(function (el) { el.id = el.id.replace("-new", "-js" + made); });
    line.querySelectorAll("label[for]").forEach(function (el) { el.htmlFor = el.htmlFor.replace("-new", "-js" + made); });
    line.querySelector("input[name=item_sku]").value = sku;
    list.appendChild(line);
  }
  scan.addEventListener("keydown", function (e) {
    if (e.key !== "Enter") return;
    e.preventDefault();
    var sku = scan.value.trim();
    if (sku !== "") add(sku);
    scan.value = "";
    scan.focus();
  });
  // Some keyboards (and scanners) send Enter's keypress apart: it must not
  // submit the sale either.
  scan.addEventListener("keypress", function (e) { if (e.key === "Enter") e.preventDefault(); });
})();
