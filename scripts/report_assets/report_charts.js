// Draws the figures of a fedbench report (scripts/report_charts.py writes their data): one
// uPlot chart per panel of each .fb-figure, the median of every curve with its seed band
// (min-max over seeds). Controls: log y, log x, seed bands; drag to zoom, double-click to
// reset; a click on a legend entry hides that curve in every panel of the figure.
// For the tests it leaves on each chart element data-plot (the plot area in page CSS pixels:
// left,top,width,height), data-x-range, data-y-range (the scales' min,max: of log10 of the values
// on a log axis), data-x-log, data-y-log and data-curves (curves drawn); on each figure data-drawn (charts drawn); on
// <html> data-figures-drawn, and data-js-errors if a script error happened.
(function () {
  "use strict";
  var root = document.documentElement;
  var errors = [];
  window.addEventListener("error", function (e) {
    errors.push(String(e.message || e));
    root.setAttribute("data-js-errors", errors.join(" | "));
  });

  function rgba(hex, alpha) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + ((n >> 16) & 255) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + alpha + ")";
  }

  // 4 significant digits, like the tables of the page.
  function short(v) {
    if (v === null || v === undefined || !isFinite(v)) return "—";
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2).replace(/\.?0+e/, "e").replace("e+", "e");
    return String(Number(v.toPrecision(4)));
  }

  function axisValues(u, splits) {
    return splits.map(function (v) { return v === null ? "" : short(v); });
  }

  // A log axis is drawn as log10 of the values on a linear scale: uPlot's own log scales step
  // through numbers and fail below 1e-16 (a metric of 1e-25 is common here); this way any
  // positive range works, and ticks are whole decades.
  function toAxis(v, log) { return v === null ? null : log ? (v > 0 ? Math.log10(v) : null) : v; }
  function fromAxis(v, log) { return v === null ? null : log ? Math.pow(10, v) : v; }

  // uPlot's data for one panel and the log choices: rows whose x cannot be drawn on a log axis
  // are left out, values a log axis cannot show become gaps.
  function panelData(panel, logx, logy) {
    var keep = [];
    panel.x.forEach(function (x, i) { if (x !== null && (!logx || x > 0)) keep.push(i); });
    var pick = function (values) {
      return keep.map(function (i) { return toAxis(values ? values[i] : null, logy); });
    };
    var data = [keep.map(function (i) { return toAxis(panel.x[i], logx); })];
    panel.curves.forEach(function (c) {
      data.push(pick(c.median), pick(c.low), pick(c.high));
    });
    return data;
  }

  // Ticks of a log axis: whole decades inside the range, at most about 8 of them.
  function decadeSplits(u, axisIdx, min, max) {
    var lo = Math.ceil(min), hi = Math.floor(max), step = Math.max(1, Math.ceil((hi - lo + 1) / 8));
    var out = [];
    for (var d = lo; d <= hi; d += step) out.push(d);
    return out.length ? out : [min, max];
  }
  function axis(label, log, size) {
    var a = { label: label, size: size, labelFont: "600 12px system-ui, sans-serif", font: "11px system-ui, sans-serif" };
    if (log) {
      a.splits = decadeSplits;
      a.values = function (u, splits) {
        return splits.map(function (v) { return Number.isInteger(v) ? "1e" + v : short(Math.pow(10, v)); });
      };
    } else {
      a.values = axisValues;
    }
    return a;
  }

  function drawFigure(figure) {
    var spec = JSON.parse(figure.querySelector(".fb-data").textContent);
    var box = figure.querySelector(".fb-charts");
    var controls = {
      logy: figure.querySelector(".fb-logy"),
      logx: figure.querySelector(".fb-logx"),
      bands: figure.querySelector(".fb-bands")
    };
    var hidden = {};  // curve index -> true while hidden (kept across redraws and panels)
    // Each panel starts on its own axis (an accuracy linear, a loss log); the log y box, once
    // touched, sets every panel.
    var logOverride = null;
    var logyOf = function (panel) {
      return logOverride !== null ? logOverride : panel.log !== undefined ? panel.log : spec.log;
    };
    var charts = [];
    var syncing = false;

    function options(panel, width) {
      var logy = logyOf(panel), logx = controls.logx.checked;
      // A long axis label (a description with its formula) does not fit beside 300 pixels: the
      // axis shows the metric's name and the title the whole label.
      var yLabel = panel.y_label || spec.y_label, title = panel.title || "";
      if (yLabel.length > 40) {
        title = title ? title + " · " + yLabel : yLabel;
        yLabel = spec.metric;
      }
      var value = function (log) { return function (u, v) { return short(fromAxis(v, log)); }; };
      var series = [{ label: panel.x_label, value: value(logx) }];
      var bands = [];
      panel.curves.forEach(function (c, k) {
        var shown = !hidden[k];
        series.push({
          label: c.label + (c.runs > 1 ? " (median of " + c.runs + ")" : ""),
          stroke: c.color, width: 1.6, dash: c.dashed ? [6, 4] : undefined, spanGaps: true,
          show: shown, points: { show: false }, value: value(logy)
        });
        ["min", "max"].forEach(function (edge) {
          series.push({ label: c.label + " " + edge, stroke: "transparent", width: 0, spanGaps: true,
                        show: shown, points: { show: false }, value: value(logy) });
        });
        if (c.high && controls.bands.checked) {
          var at = 1 + 3 * k;
          bands.push({ series: [at + 2, at + 1], fill: rgba(c.color, 0.15) });
        }
      });
      return {
        width: width, height: 300, series: series, bands: bands,
        scales: { x: { time: false } },
        title: title || undefined,
        axes: [axis(panel.x_label + (logx ? " (log)" : ""), logx, 44), axis(yLabel, logy, 64)],
        cursor: { drag: { x: true, y: true, uni: 40 } },
        legend: { live: true },
        hooks: {
          init: [function (u) {
            // The min and max of each curve are the band's edges, not entries of their own.
            var rows = u.root.querySelectorAll(".u-legend .u-series");
            for (var i = 1; i < rows.length; i++) if ((i - 1) % 3 !== 0) rows[i].style.display = "none";
          }],
          setSeries: [function (u, i, opts) {
            if (syncing || i === null || (i - 1) % 3 !== 0 || !opts || opts.show === undefined) return;
            var k = (i - 1) / 3;
            hidden[k] = !opts.show;
            syncing = true;
            charts.forEach(function (other) {
              [i, i + 1, i + 2].forEach(function (j) {
                if (other.series[j].show !== opts.show) other.setSeries(j, { show: opts.show });
              });
            });
            syncing = false;
          }],
          draw: [function (u) {
            var r = u.over.getBoundingClientRect();
            var el = u.root;
            el.setAttribute("data-plot", [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height].join(","));
            el.setAttribute("data-x-range", u.scales.x.min + "," + u.scales.x.max);
            el.setAttribute("data-y-range", u.scales.y.min + "," + u.scales.y.max);
            el.setAttribute("data-x-log", controls.logx.checked ? "1" : "0");
            el.setAttribute("data-y-log", logy ? "1" : "0");
            el.setAttribute("data-curves", String(panel.curves.length));
          }]
        }
      };
    }

    function render() {
      charts.forEach(function (u) { u.destroy(); });
      charts = [];
      box.textContent = "";
      // Two charts a row (one when the figure has one): the box less the gap (28px), then the
      // cell's border and padding (10px).
      var columns = spec.panels.length === 1 ? 1 : 2;
      box.style.gridTemplateColumns = columns === 1 ? "1fr" : "1fr 1fr";
      var width = Math.max(320, Math.floor(((box.clientWidth || 1100) - 28 * (columns - 1)) / columns) - 10);
      spec.panels.forEach(function (panel) {
        var cell = document.createElement("div");
        cell.className = "fb-chart";
        box.appendChild(cell);
        var data = panelData(panel, controls.logx.checked, logyOf(panel));
        charts.push(new uPlot(options(panel, width), data, cell));
      });
      figure.setAttribute("data-drawn", String(charts.length));
    }

    controls.logy.addEventListener("change", function () { logOverride = controls.logy.checked; render(); });
    [controls.logx, controls.bands].forEach(function (c) { c.addEventListener("change", render); });
    render();
  }

  var figures = document.querySelectorAll(".fb-figure");
  var drawn = 0;
  figures.forEach(function (figure) {
    try {
      drawFigure(figure);
      drawn += 1;
    } catch (e) {
      errors.push(figure.id + ": " + (e && e.message ? e.message : String(e)));
      root.setAttribute("data-js-errors", errors.join(" | "));
    }
  });
  root.setAttribute("data-figures-drawn", String(drawn));
})();
