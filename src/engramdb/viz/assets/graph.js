/*
 * engramdb graph viewer: a small canvas renderer inlined into one offline HTML page.
 *
 * It reads the graph from the JSON data element #engram-data, lays it out with a
 * deterministic force-directed pass (seeded PRNG, fixed iteration count, so the same graph always
 * gets the same picture), then lets the reader pan (drag the background), zoom (wheel), drag
 * nodes, hover a node or an edge to read every stored field, and toggle node types in the legend.
 *
 * No network, no libraries, no eval. User text only ever reaches the page through textContent or
 * canvas fillText, never innerHTML.
 *
 * Test hooks: window.__engramGraph exposes the data, tooltipFor(id) (the exact text the hover
 * shows) and ready (true once the layout finished). Opened with the fragment #engram-selftest the
 * page also writes a JSON report into the hidden element #engram-selftest so a headless browser's
 * --dump-dom can check it without a DevTools client.
 */
(function () {
  "use strict";

  var errors = [];
  window.addEventListener("error", function (ev) {
    errors.push(String(ev.message || ev.error || "unknown error"));
  });
  window.addEventListener("unhandledrejection", function (ev) {
    errors.push("unhandled rejection: " + String(ev.reason));
  });

  // --- constants -------------------------------------------------------------------------

  var IDEAL = 48; // ideal edge length in world units
  var PAIR_BUDGET = 2e8; // total repulsion pair evaluations a layout may spend
  var SLICE_PAIRS = 3e6; // pair evaluations per slice before yielding to the browser
  var MIN_ITERATIONS = 40;
  var MAX_ITERATIONS = 300;
  var CUTOFF = IDEAL * 6; // nodes further apart than this do not repel each other
  var GRAVITY = 0.15; // pull towards the centre per unit of distance
  var TEXT_PREVIEW = 280; // characters of node text in the tooltip
  var VALUE_PREVIEW = 240; // characters of one property value in the tooltip
  var LABEL_CHARS = 28;
  var MIN_SCALE = 0.02;
  var MAX_SCALE = 20;
  var MAX_FIT_SCALE = 1.6; // fitting never zooms a tiny graph in further than this
  var BACKGROUND = "#f6f7f9";
  var RADIUS = { Document: 9, EntityType: 8, Entity: 7, Summary: 6, Chunk: 6 };
  var WEIGHT_KEYS = { importance_weight: true, feedback_weight: true };

  // --- data ------------------------------------------------------------------------------

  var dataEl = document.getElementById("engram-data");
  var payload = JSON.parse(dataEl ? dataEl.textContent : "{}");
  var nodes = Array.isArray(payload.nodes) ? payload.nodes : [];
  var edges = Array.isArray(payload.edges) ? payload.edges : [];
  var types = Array.isArray(payload.types) ? payload.types : [];

  var colorOf = {};
  types.forEach(function (t) {
    colorOf[t.name] = t.color;
  });

  var indexOf = new Map();
  nodes.forEach(function (n, i) {
    indexOf.set(n.id, i);
  });
  var edgeIndexOf = new Map();
  edges.forEach(function (e, i) {
    edgeIndexOf.set(e.id, i);
  });

  var n = nodes.length;
  var X = new Float64Array(n);
  var Y = new Float64Array(n);
  var pinned = new Uint8Array(n);
  var degree = new Uint32Array(n);
  var neighbours = nodes.map(function () {
    return [];
  });
  var links = []; // [sourceIndex, targetIndex, edgeIndex]
  edges.forEach(function (e, k) {
    var s = indexOf.get(e.source);
    var t = indexOf.get(e.target);
    if (s === undefined || t === undefined) {
      return;
    }
    links.push([s, t, k]);
    degree[s] += 1;
    degree[t] += 1;
    neighbours[s].push(k);
    if (t !== s) {
      neighbours[t].push(k);
    }
  });
  var radius = new Float64Array(n);
  nodes.forEach(function (node, i) {
    var base = RADIUS[node.type] || 7;
    radius[i] = base + Math.min(6, Math.sqrt(degree[i]) * 0.8);
  });

  // What a node is called on the canvas: chunks by the start of their text (their names are
  // generated), everything else by its name.
  var labelText = nodes.map(function (node) {
    var raw = node.type === "Chunk" && node.text ? node.text : node.name || node.text || node.type;
    var flat = String(raw).replace(/\s+/g, " ").trim();
    return flat.length > LABEL_CHARS ? flat.slice(0, LABEL_CHARS - 1) + "…" : flat;
  });
  // Label priority: documents and types before entities, summaries and chunks; hubs first.
  var LABEL_RANK = { Document: 0, EntityType: 1, Entity: 2, Summary: 3, Chunk: 4 };
  var labelOrder = nodes
    .map(function (_, i) {
      return i;
    })
    .sort(function (a, b) {
      var ra = LABEL_RANK[nodes[a].type];
      var rb = LABEL_RANK[nodes[b].type];
      ra = ra === undefined ? 2 : ra;
      rb = rb === undefined ? 2 : rb;
      return ra - rb || degree[b] - degree[a] || a - b;
    });

  // --- tooltip text (shared by the hover and the test hook) --------------------------------

  function truncate(text, limit) {
    var s = String(text);
    return s.length > limit ? s.slice(0, limit) + "… (" + s.length + " chars)" : s;
  }

  function formatValue(value) {
    if (value === null || value === undefined) {
      return "null";
    }
    if (typeof value === "string") {
      return value;
    }
    if (typeof value === "number" || typeof value === "boolean") {
      return String(value);
    }
    return JSON.stringify(value);
  }

  function idList(ids) {
    return Array.isArray(ids) && ids.length ? ids.join(", ") : "(none)";
  }

  function propertyFields(props, fields) {
    if (!props || typeof props !== "object") {
      return;
    }
    Object.keys(props).forEach(function (key) {
      fields.push(["properties." + key, truncate(formatValue(props[key]), VALUE_PREVIEW)]);
    });
  }

  function nodeFields(node) {
    var fields = [
      ["id", node.id],
      ["type", node.type],
      ["name", node.name || ""],
      ["dataset", node.dataset + " (" + node.dataset_id + ")"],
      ["importance_weight", formatValue(node.importance_weight)],
      ["feedback_weight", formatValue(node.feedback_weight)],
      ["data_ids", idList(node.data_ids)],
    ];
    var text = node.text || "";
    var shown = truncate(text, TEXT_PREVIEW);
    if (node.text_chars > text.length && shown === text) {
      shown = text + "… (" + node.text_chars + " chars)";
    }
    fields.push(["text", shown || "(empty)"]);
    propertyFields(node.properties, fields);
    return fields;
  }

  function nameOf(id) {
    var i = indexOf.get(id);
    if (i === undefined) {
      return id;
    }
    return nodes[i].name || nodes[i].type + " " + id.slice(0, 8);
  }

  function edgeFields(edge) {
    var fields = [
      ["relation", edge.relation],
      ["source", nameOf(edge.source) + " (" + edge.source + ")"],
      ["target", nameOf(edge.target) + " (" + edge.target + ")"],
      ["id", edge.id],
      ["dataset", edge.dataset + " (" + edge.dataset_id + ")"],
      ["importance_weight", formatValue(edge.importance_weight)],
      ["feedback_weight", formatValue(edge.feedback_weight)],
      ["data_ids", idList(edge.data_ids)],
    ];
    propertyFields(edge.properties, fields);
    return fields;
  }

  function asText(fields) {
    return fields
      .map(function (f) {
        return f[0] + ": " + f[1];
      })
      .join("\n");
  }

  function tooltipFor(id) {
    var i = indexOf.get(id);
    return i === undefined ? "" : asText(nodeFields(nodes[i]));
  }

  function edgeTooltipFor(id) {
    var k = edgeIndexOf.get(id);
    return k === undefined ? "" : asText(edgeFields(edges[k]));
  }

  // --- page elements ---------------------------------------------------------------------

  var canvas = document.getElementById("engram-canvas");
  var ctx = canvas.getContext("2d");
  var tip = document.getElementById("engram-tooltip");
  var legend = document.getElementById("engram-legend");
  var header = document.getElementById("engram-header");

  var width = 0;
  var height = 0;
  var dpr = 1;
  var scale = 1;
  var tx = 0;
  var ty = 0;
  var hiddenTypes = new Set();
  var hoverNode = -1;
  var hoverEdge = -1;
  var drag = null;
  var ready = false;
  var iterationsRun = 0;
  var drawPending = false;

  var hook = {
    nodes: nodes,
    edges: edges,
    tooltipFor: tooltipFor,
    edgeTooltipFor: edgeTooltipFor,
    errors: errors,
    ready: false,
    fit: function () {
      fit();
      draw(false);
    },
    view: function () {
      return { scale: scale, tx: tx, ty: ty, width: width, height: height, iterations: iterationsRun };
    },
    positions: function () {
      var out = {};
      nodes.forEach(function (node, i) {
        out[node.id] = [X[i], Y[i]];
      });
      return out;
    },
    screenPosition: function (id) {
      var i = indexOf.get(id);
      return i === undefined ? null : { x: X[i] * scale + tx, y: Y[i] * scale + ty };
    },
  };
  window.__engramGraph = hook;

  function resize() {
    var rect = canvas.getBoundingClientRect();
    width = Math.max(1, rect.width);
    height = Math.max(1, rect.height);
    dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
  }

  function visible(i) {
    return !hiddenTypes.has(nodes[i].type);
  }

  // --- layout ----------------------------------------------------------------------------

  function mulberry32(seed) {
    var a = seed >>> 0;
    return function () {
      a = (a + 0x6d2b79f5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function layout(onDone) {
    var rand = mulberry32(0x5eed1e);
    var spread = IDEAL * Math.sqrt(n) * 0.9 + 1;
    for (var i = 0; i < n; i++) {
      var angle = rand() * Math.PI * 2;
      var r = spread * Math.sqrt(rand());
      X[i] = Math.cos(angle) * r;
      Y[i] = Math.sin(angle) * r;
    }
    var pairs = Math.max(1, (n * (n - 1)) / 2);
    var total = Math.max(MIN_ITERATIONS, Math.min(MAX_ITERATIONS, Math.floor(PAIR_BUDGET / pairs)));
    var perSlice = Math.max(1, Math.floor(SLICE_PAIRS / pairs));
    var startTemp = IDEAL * 2 + spread * 0.1;
    var k2 = IDEAL * IDEAL;
    var cut2 = CUTOFF * CUTOFF;
    var DX = new Float64Array(n);
    var DY = new Float64Array(n);

    function iterate() {
      var temp = startTemp * (1 - iterationsRun / total) + 0.5;
      DX.fill(0);
      DY.fill(0);
      for (var a = 0; a < n; a++) {
        var xa = X[a];
        var ya = Y[a];
        for (var b = a + 1; b < n; b++) {
          var dx = xa - X[b];
          var dy = ya - Y[b];
          var d2 = dx * dx + dy * dy;
          if (d2 >= cut2) {
            continue;
          }
          if (d2 < 0.01) {
            // Coincident points: separate them deterministically.
            dx = 0.1 * ((a % 7) - (b % 5) + 0.5);
            dy = 0.1 * ((b % 7) - (a % 5) + 0.5);
            d2 = dx * dx + dy * dy;
          }
          // k^2/d along the unit vector, faded out smoothly towards the cut-off.
          var fade = 1 - d2 / cut2;
          var f = (k2 / d2) * fade * fade;
          DX[a] += dx * f;
          DY[a] += dy * f;
          DX[b] -= dx * f;
          DY[b] -= dy * f;
        }
      }
      for (var l = 0; l < links.length; l++) {
        var s = links[l][0];
        var t = links[l][1];
        if (s === t) {
          continue;
        }
        var ex = X[t] - X[s];
        var ey = Y[t] - Y[s];
        var d = Math.sqrt(ex * ex + ey * ey);
        var pull = d / IDEAL;
        DX[s] += ex * pull;
        DY[s] += ey * pull;
        DX[t] -= ex * pull;
        DY[t] -= ey * pull;
      }
      for (var c = 0; c < n; c++) {
        if (pinned[c]) {
          continue;
        }
        var gx = DX[c] - X[c] * GRAVITY;
        var gy = DY[c] - Y[c] * GRAVITY;
        var len = Math.sqrt(gx * gx + gy * gy);
        if (len > 0) {
          var step = Math.min(len, temp) / len;
          X[c] += gx * step;
          Y[c] += gy * step;
        }
      }
      iterationsRun += 1;
    }

    var slices = 0;
    function slice() {
      try {
        for (var s = 0; s < perSlice && iterationsRun < total; s++) {
          iterate();
        }
        slices += 1;
        if (iterationsRun < total && slices % 8 === 1) {
          // Show progress on big graphs, cheaply: a frame of a large graph costs tens of ms.
          fit();
          draw(true);
        }
        if (iterationsRun < total) {
          setTimeout(slice, 0);
        } else {
          onDone();
        }
      } catch (err) {
        errors.push("layout: " + String(err && err.stack ? err.stack : err));
        onDone();
      }
    }
    slice();
  }

  function fit() {
    var minX = Infinity;
    var minY = Infinity;
    var maxX = -Infinity;
    var maxY = -Infinity;
    for (var i = 0; i < n; i++) {
      if (!visible(i)) {
        continue;
      }
      minX = Math.min(minX, X[i] - radius[i]);
      maxX = Math.max(maxX, X[i] + radius[i]);
      minY = Math.min(minY, Y[i] - radius[i]);
      maxY = Math.max(maxY, Y[i] + radius[i]);
    }
    if (minX === Infinity) {
      scale = 1;
      tx = width / 2;
      ty = height / 2;
      return;
    }
    // Keep the drawing clear of the header (top left) and the legend (top right) when there
    // is room for it.
    var left = 24;
    var right = 24;
    var top = 24;
    var bottom = 24;
    if (legend && width > 720) {
      right += legend.getBoundingClientRect().width;
    }
    if (header && height > 360) {
      top += header.getBoundingClientRect().height;
    }
    var labelRoom = n <= 150 ? 90 : 0; // labels extend to the right of nodes
    var availW = Math.max(40, width - left - right - labelRoom);
    var availH = Math.max(40, height - top - bottom);
    var w = Math.max(1, maxX - minX);
    var h = Math.max(1, maxY - minY);
    scale = Math.max(MIN_SCALE, Math.min(MAX_FIT_SCALE, Math.min(availW / w, availH / h)));
    tx = left + (availW - w * scale) / 2 - minX * scale;
    ty = top + (availH - h * scale) / 2 - minY * scale;
  }

  // --- drawing ---------------------------------------------------------------------------

  function requestDraw() {
    if (drawPending) {
      return;
    }
    drawPending = true;
    var run = function () {
      drawPending = false;
      draw(false);
    };
    if (window.requestAnimationFrame) {
      window.requestAnimationFrame(run);
    } else {
      setTimeout(run, 16);
    }
  }

  function highlightedEdges() {
    var marked = new Set();
    if (hoverNode >= 0) {
      neighbours[hoverNode].forEach(function (k) {
        marked.add(k);
      });
    }
    if (hoverEdge >= 0) {
      marked.add(hoverEdge);
    }
    return marked;
  }

  function edgePath(path, l) {
    var s = links[l][0];
    var t = links[l][1];
    if (s === t) {
      var r = radius[s];
      path.moveTo(X[s] + r * 2.2, Y[s] - r);
      path.arc(X[s] + r, Y[s] - r, r * 1.2, 0, Math.PI * 2);
      return;
    }
    path.moveTo(X[s], Y[s]);
    path.lineTo(X[t], Y[t]);
  }

  function arrowPath(path, l) {
    var s = links[l][0];
    var t = links[l][1];
    if (s === t) {
      return;
    }
    var ex = X[t] - X[s];
    var ey = Y[t] - Y[s];
    var d = Math.sqrt(ex * ex + ey * ey);
    if (d < radius[t] + 2) {
      return;
    }
    var ux = ex / d;
    var uy = ey / d;
    var size = 7 / scale;
    var px = X[t] - ux * (radius[t] + 1 / scale);
    var py = Y[t] - uy * (radius[t] + 1 / scale);
    path.moveTo(px, py);
    path.lineTo(px - ux * size - uy * size * 0.45, py - uy * size + ux * size * 0.45);
    path.lineTo(px - ux * size + uy * size * 0.45, py - uy * size - ux * size * 0.45);
    path.closePath();
  }

  function withHalo(text, x, y, font, color) {
    ctx.font = font;
    ctx.lineJoin = "round";
    ctx.lineWidth = 3;
    ctx.strokeStyle = "rgba(246, 247, 249, 0.92)";
    ctx.strokeText(text, x, y);
    ctx.fillStyle = color;
    ctx.fillText(text, x, y);
  }

  /** Paint the graph; ``quick`` (used while the layout runs) leaves out arrows and labels. */
  function draw(quick) {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = BACKGROUND;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (n === 0) {
      return;
    }
    ctx.setTransform(dpr * scale, 0, 0, dpr * scale, dpr * tx, dpr * ty);
    var marked = highlightedEdges();
    var focus = hoverNode >= 0 || hoverEdge >= 0;

    var plain = new Path2D();
    var plainArrows = new Path2D();
    var strong = new Path2D();
    var strongArrows = new Path2D();
    var visibleEdges = 0;
    for (var l = 0; l < links.length; l++) {
      if (!visible(links[l][0]) || !visible(links[l][1])) {
        continue;
      }
      visibleEdges += 1;
      if (marked.has(links[l][2])) {
        edgePath(strong, l);
        arrowPath(strongArrows, l);
      } else {
        edgePath(plain, l);
        if (!quick) {
          arrowPath(plainArrows, l);
        }
      }
    }
    ctx.lineWidth = 1.2 / scale;
    ctx.strokeStyle = focus ? "rgba(120, 130, 148, 0.25)" : "rgba(110, 120, 140, 0.55)";
    ctx.fillStyle = ctx.strokeStyle;
    ctx.stroke(plain);
    ctx.fill(plainArrows);
    ctx.lineWidth = 2.2 / scale;
    ctx.strokeStyle = "rgba(40, 52, 70, 0.9)";
    ctx.fillStyle = ctx.strokeStyle;
    ctx.stroke(strong);
    ctx.fill(strongArrows);

    var near = new Set();
    if (hoverNode >= 0) {
      near.add(hoverNode);
    }
    marked.forEach(function (k) {
      var e = edges[k];
      near.add(indexOf.get(e.source));
      near.add(indexOf.get(e.target));
    });

    var byColor = new Map();
    var visibleNodes = 0;
    for (var i = 0; i < n; i++) {
      if (!visible(i)) {
        continue;
      }
      visibleNodes += 1;
      var color = colorOf[nodes[i].type] || "#888888";
      var path = byColor.get(color);
      if (!path) {
        path = new Path2D();
        byColor.set(color, path);
      }
      path.moveTo(X[i] + radius[i], Y[i]);
      path.arc(X[i], Y[i], radius[i], 0, Math.PI * 2);
    }
    ctx.lineWidth = 1.5 / scale;
    ctx.strokeStyle = "#ffffff";
    byColor.forEach(function (path, color) {
      ctx.globalAlpha = focus ? 0.55 : 1;
      ctx.fillStyle = color;
      ctx.fill(path);
      ctx.globalAlpha = 1;
      ctx.stroke(path);
    });
    near.forEach(function (i) {
      if (i === undefined || !visible(i)) {
        return;
      }
      ctx.beginPath();
      ctx.arc(X[i], Y[i], radius[i], 0, Math.PI * 2);
      ctx.fillStyle = colorOf[nodes[i].type] || "#888888";
      ctx.fill();
      ctx.lineWidth = (i === hoverNode ? 3 : 1.5) / scale;
      ctx.strokeStyle = i === hoverNode ? "#1f2933" : "#ffffff";
      ctx.stroke();
    });

    if (quick) {
      return;
    }
    // Labels are drawn in screen space so they keep their size at every zoom level, most
    // important first; a label that would overlap one already placed is skipped.
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.textBaseline = "middle";
    var space = new LabelSpace();
    var order = [];
    near.forEach(function (i) {
      if (i !== undefined) {
        order.push(i);
      }
    });
    var allLabels = visibleNodes <= 400 || scale >= 1.2;
    if (allLabels) {
      order = order.concat(labelOrder);
    }
    var done = new Uint8Array(n);
    for (var o = 0; o < order.length; o++) {
      var j = order[o];
      if (done[j] || !visible(j)) {
        continue;
      }
      done[j] = 1;
      var sx = X[j] * scale + tx;
      var sy = Y[j] * scale + ty;
      if (sx < -200 || sy < -20 || sx > width + 20 || sy > height + 20) {
        continue;
      }
      var bold = near.has(j) && focus;
      ctx.font = bold ? "600 12px system-ui, sans-serif" : "12px system-ui, sans-serif";
      var lx = sx + radius[j] * scale + 4;
      var lw = ctx.measureText(labelText[j]).width;
      if (space.take(lx - 2, sy - 8, lx + lw + 2, sy + 8) || bold) {
        withHalo(labelText[j], lx, sy, ctx.font, "#1f2933");
      }
    }
    var edgeOrder = [];
    marked.forEach(function (k) {
      edgeOrder.push(k);
    });
    if (visibleEdges <= 400 || scale >= 1.5) {
      for (var q = 0; q < links.length; q++) {
        edgeOrder.push(links[q][2]);
      }
    }
    ctx.textAlign = "center";
    ctx.font = "10px system-ui, sans-serif";
    var edgeDone = new Set();
    for (var m = 0; m < edgeOrder.length; m++) {
      var k = edgeOrder[m];
      if (edgeDone.has(k)) {
        continue;
      }
      edgeDone.add(k);
      var a = indexOf.get(edges[k].source);
      var b = indexOf.get(edges[k].target);
      if (!visible(a) || !visible(b)) {
        continue;
      }
      var mx = ((X[a] + X[b]) / 2) * scale + tx;
      var my = ((Y[a] + Y[b]) / 2) * scale + ty;
      if (a === b) {
        my -= radius[a] * 2.4 * scale;
      }
      var text = edges[k].relation;
      var half = ctx.measureText(text).width / 2;
      if (space.take(mx - half - 1, my - 6, mx + half + 1, my + 6) || marked.has(k)) {
        withHalo(text, mx, my, ctx.font, "#52606d");
      }
    }
    ctx.textAlign = "start";
  }

  /** Screen rectangles already holding a label, bucketed in a coarse grid. */
  function LabelSpace() {
    this.cells = new Map();
  }
  LabelSpace.prototype.take = function (x0, y0, x1, y1) {
    var size = 96;
    var cx0 = Math.floor(x0 / size);
    var cx1 = Math.floor(x1 / size);
    var cy0 = Math.floor(y0 / size);
    var cy1 = Math.floor(y1 / size);
    var cx;
    var cy;
    for (cx = cx0; cx <= cx1; cx++) {
      for (cy = cy0; cy <= cy1; cy++) {
        var list = this.cells.get(cx + "," + cy);
        if (!list) {
          continue;
        }
        for (var r = 0; r < list.length; r++) {
          var b = list[r];
          if (x0 < b[2] && x1 > b[0] && y0 < b[3] && y1 > b[1]) {
            return false;
          }
        }
      }
    }
    var rect = [x0, y0, x1, y1];
    for (cx = cx0; cx <= cx1; cx++) {
      for (cy = cy0; cy <= cy1; cy++) {
        var key = cx + "," + cy;
        var cell = this.cells.get(key);
        if (cell) {
          cell.push(rect);
        } else {
          this.cells.set(key, [rect]);
        }
      }
    }
    return true;
  };

  // --- hit testing -----------------------------------------------------------------------

  function nodeAt(px, py) {
    var wx = (px - tx) / scale;
    var wy = (py - ty) / scale;
    var slack = 3 / scale;
    for (var i = n - 1; i >= 0; i--) {
      if (!visible(i)) {
        continue;
      }
      var dx = X[i] - wx;
      var dy = Y[i] - wy;
      var r = radius[i] + slack;
      if (dx * dx + dy * dy <= r * r) {
        return i;
      }
    }
    return -1;
  }

  function edgeAt(px, py) {
    var wx = (px - tx) / scale;
    var wy = (py - ty) / scale;
    var best = -1;
    var bestD = 5 / scale;
    for (var l = 0; l < links.length; l++) {
      var s = links[l][0];
      var t = links[l][1];
      if (s === t || !visible(s) || !visible(t)) {
        continue;
      }
      var ex = X[t] - X[s];
      var ey = Y[t] - Y[s];
      var len2 = ex * ex + ey * ey;
      var u = len2 > 0 ? ((wx - X[s]) * ex + (wy - Y[s]) * ey) / len2 : 0;
      u = Math.max(0, Math.min(1, u));
      var cx = X[s] + u * ex - wx;
      var cy = Y[s] + u * ey - wy;
      var d = Math.sqrt(cx * cx + cy * cy);
      if (d < bestD) {
        bestD = d;
        best = links[l][2];
      }
    }
    return best;
  }

  // --- tooltip ---------------------------------------------------------------------------

  function showTooltip(title, color, fields, clientX, clientY) {
    tip.textContent = "";
    var head = document.createElement("div");
    head.className = "tt-title";
    if (color) {
      var sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.cssText =
        "display:inline-block;width:10px;height:10px;border-radius:50%;background:" + color;
      head.appendChild(sw);
    }
    head.appendChild(document.createTextNode(title));
    tip.appendChild(head);
    var list = document.createElement("dl");
    fields.forEach(function (f) {
      var dt = document.createElement("dt");
      dt.textContent = f[0];
      var dd = document.createElement("dd");
      dd.textContent = f[1];
      if (WEIGHT_KEYS[f[0]]) {
        dd.className = "weight";
      }
      list.appendChild(dt);
      list.appendChild(dd);
    });
    tip.appendChild(list);
    tip.hidden = false;
    var box = tip.getBoundingClientRect();
    var x = clientX + 14;
    var y = clientY + 14;
    if (x + box.width > window.innerWidth - 8) {
      x = Math.max(8, clientX - box.width - 14);
    }
    if (y + box.height > window.innerHeight - 8) {
      y = Math.max(8, window.innerHeight - box.height - 8);
    }
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  function hideTooltip() {
    tip.hidden = true;
  }

  function hover(px, py, clientX, clientY) {
    var i = nodeAt(px, py);
    var k = i >= 0 ? -1 : edgeAt(px, py);
    if (i !== hoverNode || k !== hoverEdge) {
      hoverNode = i;
      hoverEdge = k;
      requestDraw();
    }
    canvas.classList.toggle("over-item", i >= 0 || k >= 0);
    if (i >= 0) {
      var node = nodes[i];
      showTooltip(node.name || node.type, colorOf[node.type], nodeFields(node), clientX, clientY);
    } else if (k >= 0) {
      showTooltip("edge: " + edges[k].relation, null, edgeFields(edges[k]), clientX, clientY);
    } else {
      hideTooltip();
    }
  }

  // --- interaction -----------------------------------------------------------------------

  function local(ev) {
    var rect = canvas.getBoundingClientRect();
    return { x: ev.clientX - rect.left, y: ev.clientY - rect.top };
  }

  canvas.addEventListener("pointerdown", function (ev) {
    var p = local(ev);
    var i = nodeAt(p.x, p.y);
    if (i >= 0) {
      drag = { node: i, dx: X[i] - (p.x - tx) / scale, dy: Y[i] - (p.y - ty) / scale };
      pinned[i] = 1;
    } else {
      drag = { node: -1, startX: p.x, startY: p.y, tx: tx, ty: ty };
    }
    hideTooltip();
    canvas.classList.add("dragging");
    try {
      canvas.setPointerCapture(ev.pointerId);
    } catch (err) {
      // Synthetic events (the self-test) have no active pointer to capture; dragging still
      // works while the pointer stays over the canvas.
    }
  });

  canvas.addEventListener("pointermove", function (ev) {
    var p = local(ev);
    if (drag && drag.node >= 0) {
      X[drag.node] = (p.x - tx) / scale + drag.dx;
      Y[drag.node] = (p.y - ty) / scale + drag.dy;
      requestDraw();
    } else if (drag) {
      tx = drag.tx + p.x - drag.startX;
      ty = drag.ty + p.y - drag.startY;
      requestDraw();
    } else {
      hover(p.x, p.y, ev.clientX, ev.clientY);
    }
  });

  function endDrag() {
    drag = null;
    canvas.classList.remove("dragging");
  }
  canvas.addEventListener("pointerup", endDrag);
  canvas.addEventListener("pointercancel", endDrag);
  canvas.addEventListener("pointerleave", function () {
    if (!drag) {
      hoverNode = -1;
      hoverEdge = -1;
      hideTooltip();
      requestDraw();
    }
  });

  canvas.addEventListener(
    "wheel",
    function (ev) {
      ev.preventDefault();
      var p = local(ev);
      var unit = ev.deltaMode === 1 ? 0.05 : ev.deltaMode === 2 ? 1 : 0.0015;
      var next = Math.max(MIN_SCALE, Math.min(MAX_SCALE, scale * Math.exp(-ev.deltaY * unit)));
      var wx = (p.x - tx) / scale;
      var wy = (p.y - ty) / scale;
      scale = next;
      tx = p.x - wx * scale;
      ty = p.y - wy * scale;
      hideTooltip();
      requestDraw();
    },
    { passive: false }
  );

  canvas.addEventListener("dblclick", function (ev) {
    var p = local(ev);
    if (nodeAt(p.x, p.y) < 0) {
      fit();
      requestDraw();
    }
  });

  window.addEventListener("resize", function () {
    resize();
    requestDraw();
  });

  if (legend) {
    Array.prototype.forEach.call(legend.querySelectorAll("li[data-type]"), function (item) {
      var button = item.querySelector("button");
      if (!button) {
        return;
      }
      button.addEventListener("click", function () {
        var type = item.getAttribute("data-type");
        if (hiddenTypes.has(type)) {
          hiddenTypes.delete(type);
        } else {
          hiddenTypes.add(type);
        }
        item.classList.toggle("off", hiddenTypes.has(type));
        button.setAttribute("aria-pressed", hiddenTypes.has(type) ? "false" : "true");
        hoverNode = -1;
        hoverEdge = -1;
        requestDraw();
      });
    });
    var fitButton = document.getElementById("engram-fit");
    if (fitButton) {
      fitButton.addEventListener("click", function () {
        fit();
        requestDraw();
      });
    }
  }

  // --- self-test report (only with #engram-selftest) ---------------------------------------

  function paintedPixels() {
    var image = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    var count = 0;
    for (var p = 0; p < image.length; p += 16) {
      // Background is #f6f7f9; anything clearly different was drawn.
      if (Math.abs(image[p] - 0xf6) + Math.abs(image[p + 1] - 0xf7) + Math.abs(image[p + 2] - 0xf9) > 24) {
        count += 1;
      }
    }
    return count;
  }

  function simulateHover(id) {
    var at = hook.screenPosition(id);
    if (!at) {
      return null;
    }
    var rect = canvas.getBoundingClientRect();
    canvas.dispatchEvent(
      new PointerEvent("pointermove", {
        clientX: rect.left + at.x,
        clientY: rect.top + at.y,
        bubbles: true,
      })
    );
    return { id: id, visible: !tip.hidden, text: tip.textContent };
  }

  function pointer(type, x, y) {
    var rect = canvas.getBoundingClientRect();
    canvas.dispatchEvent(
      new PointerEvent(type, {
        clientX: rect.left + x,
        clientY: rect.top + y,
        pointerId: 1,
        bubbles: true,
        cancelable: true,
      })
    );
  }

  function backgroundPoint() {
    for (var gy = 0.9; gy > 0.1; gy -= 0.1) {
      for (var gx = 0.1; gx < 0.6; gx += 0.1) {
        var x = width * gx;
        var y = height * gy;
        if (nodeAt(x, y) < 0 && edgeAt(x, y) < 0) {
          return { x: x, y: y };
        }
      }
    }
    return null;
  }

  /** Drive zoom, pan, node drag and the legend through their real event handlers, then put
   * the view back as it was. */
  function exerciseInteractions() {
    var result = {};
    var rect = canvas.getBoundingClientRect();
    var before = scale;
    canvas.dispatchEvent(
      new WheelEvent("wheel", {
        clientX: rect.left + width / 2,
        clientY: rect.top + height / 2,
        deltaY: -200,
        bubbles: true,
        cancelable: true,
      })
    );
    result.zoomed = scale > before;
    var bg = backgroundPoint();
    if (bg) {
      var tx0 = tx;
      var ty0 = ty;
      pointer("pointerdown", bg.x, bg.y);
      pointer("pointermove", bg.x + 30, bg.y + 10);
      pointer("pointerup", bg.x + 30, bg.y + 10);
      result.panned = Math.abs(tx - tx0 - 30) < 1e-6 && Math.abs(ty - ty0 - 10) < 1e-6;
    }
    var i = labelOrder[0];
    var sx = X[i] * scale + tx;
    var sy = Y[i] * scale + ty;
    var hit = nodeAt(sx, sy);
    if (hit >= 0) {
      var x0 = X[hit];
      var y0 = Y[hit];
      pointer("pointerdown", sx, sy);
      pointer("pointermove", sx + 40, sy);
      pointer("pointerup", sx + 40, sy);
      result.dragged = Math.abs((X[hit] - x0) * scale - 40) < 1e-6 && Math.abs(Y[hit] - y0) < 1e-6;
      X[hit] = x0;
      Y[hit] = y0;
      pinned[hit] = 0;
    }
    var toggle = legend ? legend.querySelector("li[data-type] button") : null;
    if (toggle) {
      toggle.click();
      result.hidType = hiddenTypes.size === 1;
      toggle.click();
      result.showedTypeAgain = hiddenTypes.size === 0;
    }
    fit();
    draw(false);
    return result;
  }

  function selfTest() {
    var out = document.getElementById("engram-selftest");
    if (!out || window.location.hash !== "#engram-selftest") {
      return;
    }
    var report = {
      ready: ready,
      nodeCount: n,
      edgeCount: links.length,
      iterations: iterationsRun,
      tooltips: {},
      edgeTooltips: {},
      painted: 0,
      hover: null,
      interactions: null,
      errors: errors,
    };
    try {
      nodes.forEach(function (node) {
        report.tooltips[node.id] = tooltipFor(node.id);
      });
      edges.forEach(function (edge) {
        report.edgeTooltips[edge.id] = edgeTooltipFor(edge.id);
      });
      report.painted = paintedPixels();
      if (n > 0) {
        report.interactions = exerciseInteractions();
      }
      report.view = hook.view();
      report.positions = hook.positions();
      if (n > 0) {
        // Hover the best connected node through the real event path; leave its tooltip open
        // so a screenshot shows what a reader sees.
        var best = 0;
        for (var i = 1; i < n; i++) {
          if (degree[i] > degree[best]) {
            best = i;
          }
        }
        report.hover = simulateHover(nodes[best].id);
        draw(false);
      }
    } catch (err) {
      errors.push("selftest: " + String(err && err.stack ? err.stack : err));
    }
    report.errors = errors.slice();
    out.textContent = JSON.stringify(report);
  }

  function finish() {
    ready = true;
    hook.ready = true;
    document.documentElement.setAttribute("data-engram-ready", "true");
    selfTest();
  }

  // --- start -----------------------------------------------------------------------------

  resize();
  if (n === 0) {
    draw(false);
    finish();
  } else {
    layout(function () {
      fit();
      draw(false);
      finish();
    });
  }
})();
