// Draws every chart whose Chart.js configuration the server embedded as JSON next to its canvas.
(function () {
  "use strict";
  var canvases = document.querySelectorAll("canvas[data-chart]");
  if (typeof Chart === "undefined") {
    canvases.forEach(function (canvas) {
      var note = document.createElement("p");
      note.className = "error chart-missing";
      note.textContent = "Chart library missing: run tools/bootstrap.sh (npm ci in tools/dashboard).";
      canvas.replaceWith(note);
    });
    return;
  }
  canvases.forEach(function (canvas) {
    var config = JSON.parse(document.getElementById(canvas.dataset.chart).textContent);
    new Chart(canvas, config);
    canvas.dataset.rendered = "true";
  });
  document.body.dataset.chartsRendered = String(canvases.length);
})();
