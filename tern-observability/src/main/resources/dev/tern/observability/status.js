"use strict";
(function () {
  const REFRESH_MILLIS = 2000;
  const GAUGES = ["requests_active", "sessions", "listens", "sse_streams", "event_store_size", "shed_total",
    "refused_by_share_total"];
  const $ = (id) => document.getElementById(id);
  const dash = "–";

  function number(v, digits) {
    if (v === null || v === undefined) {
      return dash;
    }
    return digits === undefined ? String(v) : v.toFixed(digits);
  }

  function millis(v) {
    if (v === null || v === undefined) {
      return dash;
    }
    return v < 1 ? v.toFixed(3) : v < 100 ? v.toFixed(2) : v.toFixed(0);
  }

  function uptime(seconds) {
    const s = Math.floor(seconds);
    const d = Math.floor(s / 86400);
    const h = Math.floor((s % 86400) / 3600);
    const m = Math.floor((s % 3600) / 60);
    let text = (s % 60) + " s";
    if (d || h || m) {
      text = m + " min " + text;
    }
    if (d || h) {
      text = h + " h " + text;
    }
    if (d) {
      text = d + " d " + text;
    }
    return text;
  }

  function set(id, text) {
    const el = $(id);
    if (el.textContent !== text) {
      el.textContent = text;
    }
  }

  function cell(row, className, text) {
    const td = document.createElement("td");
    td.className = className;
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function operations(list) {
    const rows = list.map((op) => {
      const tr = document.createElement("tr");
      tr.dataset.method = op.method;
      tr.dataset.target = op.target === null ? "" : op.target;
      cell(tr, "method", op.method);
      cell(tr, "target", op.target === null ? "" : op.target);
      cell(tr, "count", number(op.count));
      cell(tr, op.errors > 0 ? "errors some" : "errors", number(op.errors));
      cell(tr, "window", number(op.window_count));
      cell(tr, "p50", millis(op.p50_ms));
      cell(tr, "p90", millis(op.p90_ms));
      cell(tr, "p99", millis(op.p99_ms));
      cell(tr, "max", millis(op.max_ms));
      return tr;
    });
    $("operations").tBodies[0].replaceChildren(...rows);
    $("no-operations").hidden = rows.length > 0;
  }

  function errors(list) {
    const rows = list.map((e) => {
      const tr = document.createElement("tr");
      cell(tr, "time", new Date(e.time).toLocaleTimeString());
      cell(tr, "method", e.method);
      cell(tr, "target", e.target === undefined ? "" : e.target);
      cell(tr, "error", e.error);
      cell(tr, "message", e.message === undefined ? "" : e.message);
      return tr;
    });
    $("errors").tBodies[0].replaceChildren(...rows);
    $("no-errors").hidden = rows.length > 0;
  }

  function points(values, max) {
    const step = 600 / Math.max(1, values.length - 1);
    return values.map((v, i) => (i * step).toFixed(1) + "," + (119 - (v / max) * 114).toFixed(1)).join(" ");
  }

  function chart(series) {
    const max = Math.max(1, ...series.requests);
    $("chart-requests").setAttribute("points", points(series.requests, max));
    $("chart-errors").setAttribute("points", points(series.errors, max));
    set("chart-max", "max " + max + "/s");
  }

  function render(s) {
    set("uptime", uptime(s.uptime_seconds));
    set("rate", number(s.requests_per_second, 1));
    set("error-rate", number(s.errors_per_second, 1));
    set("error-ratio", s.error_ratio === null ? dash : (100 * s.error_ratio).toFixed(2) + " %");
    for (const name of GAUGES) {
      set(name, number(s.gauges[name]));
    }
    const completed = s.gauges.tls_handshakes;
    const failed = s.gauges.tls_handshake_failures;
    set("tls_handshakes", completed === undefined ? dash : completed + " ok, " + (failed || 0) + " failed");
    chart(s.series);
    operations(s.operations);
    errors(s.recent_errors);
  }

  async function refresh() {
    const state = $("state");
    try {
      const response = await fetch("status.json", { cache: "no-store", credentials: "same-origin" });
      if (!response.ok) {
        throw new Error("HTTP " + response.status);
      }
      const s = await response.json();
      render(s);
      state.textContent = "updated " + new Date(s.now).toLocaleTimeString();
      state.className = "ok";
    } catch (e) {
      state.textContent = "cannot read status.json: " + e.message;
      state.className = "bad";
    } finally {
      setTimeout(refresh, REFRESH_MILLIS);
    }
  }

  refresh();
})();
