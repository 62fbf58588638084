/* toolkit view: the shell of the offline site (plain JavaScript, no build step).
 *
 * Data arrives as scripts that call window.__tk.* (data/manifest.js, data/index-N.js,
 * data/search-N.js, data/run/NNNNNN.js, data/transcript/NNNNNN.js: a transcript several
 * runs share, written once), so the site opens from file:// with no network.
 * Every text of a run is set with textContent: nothing from the data becomes HTML; a
 * bidirectional embedding, override or isolate in it is shown as its escape (shown()).
 *
 * Routes (the hash): #  (the index)   #run/ID   #run/ID/dim/KEY   #run/ID/item/KEY
 *   #filter/COL/TEXT...   #compare   #calibration[/SECTION | /disagreements/GROUP/VALUE
 *   | /disagreements/cell/CELL | /item/N]
 *   #where/FILTER (the index filtered by value)   #help/filter   #run/ID/raw/KEY (a raw
 *   record)   #experiments
 */
(function () {
  "use strict";

  var PAGE = 100;
  var S = {
    manifest: null,
    rows: [],
    shardsIn: 0,
    byId: new Map(),
    runs: new Map(),
    waiting: new Map(),
    transcripts: new Map(),
    transcriptWaiting: new Map(),
    searchText: null,
    searchShared: {},
    calSearch: [],
    searchIn: 0,
    searchWaiters: [],
    sort: { col: "verdict", dir: 1 },
    filters: {},
    query: "",
    page: 0,
    view: [],
    focusRow: 0,
    /* filters by value, raw records, experiments */
    valueShards: [],
    valuesIn: 0,
    valueWaiters: [],
    valuesAsked: false,
    whereText: "",
    where: null,
    whereError: "",
    raws: new Map(),
    rawWaiting: new Map(),
    experiments: null,
  };

  // ------------------------------------------------------------------ helpers
  /* The controls that reorder the text after them (embeddings, overrides, isolates:
   * U+202A-U+202E, U+2066-U+2069): a run named "run<U+202E>evil.json" would read
   * "runnosj.live" and reverse the rest of its line. Shown as their escape ("\u202e"),
   * as the terminal output shows them (toolkit.io.edge.visible); the marks that only
   * place a neutral character (LRM, RLM) and the joiners a script needs stay. */
  var BIDI = /[\u202a-\u202e\u2066-\u2069]/g;
  function shown(s) {
    return String(s).replace(BIDI, function (c) { return "\\u" + c.charCodeAt(0).toString(16); });
  }
  var SHOWN_ATTRS = { title: true, "aria-label": true };  // read out or shown as a tooltip
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) return;
        if (k === "text") node.textContent = shown(v);
        else if (k === "class") node.className = v;
        else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
        else if (SHOWN_ATTRS[k]) node.setAttribute(k, shown(v));
        else node.setAttribute(k, v === true ? "" : String(v));
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === "string" ? document.createTextNode(shown(c)) : c);
    });
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = shown(attrs[k]);
      else node.setAttribute(k, SHOWN_ATTRS[k] ? shown(attrs[k]) : String(attrs[k]));
    });
    return node;
  }
  function enc(s) { return encodeURIComponent(s); }
  function runHref(id) { return "#run/" + enc(id); }
  function dimHref(id, key) { return runHref(id) + "/dim/" + enc(key); }
  function itemHref(id, key) { return runHref(id) + "/item/" + enc(key); }
  // The sentence beside "alpha with the judge added", from the two numbers as printed.
  function judgeAddedNote(withJudge, humans) {
    if (withJudge === null || withJudge === undefined || humans === null || humans === undefined) {
      return "Not computed: too few items rated by both the judge and the humans.";
    }
    var a = Number(pyFixed(withJudge, 3)), b = Number(pyFixed(humans, 3));  /* as calibrate prints them */
    if (a < b) return "Below the humans' alpha: the judge agrees with them less than they agree with each other.";
    if (a > b) return "Above the humans' alpha: adding the judge raises the agreement; it agrees with them at least as well as they agree with each other.";
    return "Equal to the humans' alpha at this precision: adding the judge leaves the agreement as it was.";
  }

  /* A score (and every number on the run pages: evidence and cited values, the chart's
     axis and points) as the text views print it (toolkit.scorecard.format_value): integers bare,
     others to three decimals rounded as Python's format rounds the float's exact binary
     value. toFixed does too, but for an exact tie (an odd multiple of 1/16: 0.0625) it
     goes away from zero where Python goes to the even digit (0.062). */
  function fmtValue(v) {
    if (v === null || v === undefined) return "–";
    if (typeof v !== "number") return String(v);
    if (Number.isNaN(v)) return "nan";
    if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
    if (Number.isInteger(v)) return Math.abs(v) < 1e21 ? String(v) : BigInt(v).toString();
    var text = v.toFixed(3), sixteenths = v * 16;  /* exact: a power of two */
    if (!Number.isInteger(sixteenths) || sixteenths % 2 === 0) return text;
    /* a tie: toFixed took the neighbour away from zero; an odd last digit steps back to
       the even one (no borrow: the digit is 1 to 9) */
    var last = Number(text.charAt(text.length - 1));
    return last % 2 === 0 ? text : text.slice(0, -1) + String(last - 1);
  }
  /* Python's format specs, for the pages whose Python view prints with them (calibrate:
     .3f, +.2f, g and .0%; compare: num's significant digits and p_text): the float's
     exact decimal value rounded half to even, as Python's format rounds it. toFixed and
     toPrecision round that exact value too but take a tie away from zero. */
  function exactDecimal(a) {
    /* a >= 0, finite: [integer digits, fraction digits] of its exact binary value
       (toFixed(100) is exact above 2^-47; below, correctly rounded at 100 places) */
    if (a >= 1e21) return [BigInt(a).toString(), ""];
    var text = a.toFixed(100), dot = text.indexOf(".");
    return [text.slice(0, dot), text.slice(dot + 1).replace(/0+$/, "")];
  }
  /* The first `keep` digits of `digits`, rounded half to even on the rest (one digit
     longer when a carry runs off the front). */
  function roundDigits(digits, keep) {
    var head = digits.slice(0, keep), rest = digits.slice(keep), first = rest.charAt(0);
    var up = first > "5" || (first === "5" && (/[1-9]/.test(rest.slice(1)) || (head.length > 0 && Number(head.charAt(head.length - 1)) % 2 === 1)));
    if (!up) return head;
    var d = head.split(""), i = d.length - 1;
    while (i >= 0 && d[i] === "9") { d[i] = "0"; i -= 1; }
    if (i < 0) d.unshift("1"); else d[i] = String(Number(d[i]) + 1);
    return d.join("");
  }
  function pySpecial(v, sign) {
    if (Number.isNaN(v)) return (sign ? "+" : "") + "nan";
    if (!Number.isFinite(v)) return (v < 0 ? "-" : sign ? "+" : "") + "inf";
    return null;
  }
  /* f"{v:.{d}f}" (sign: f"{v:+.{d}f}"). */
  function pyFixed(v, d, sign) {
    if (v === null || v === undefined) return "–";
    var special = pySpecial(v, sign);
    if (special !== null) return special;
    var lead = v < 0 || Object.is(v, -0) ? "-" : sign ? "+" : "";
    var parts = exactDecimal(Math.abs(v)), frac = parts[1];
    while (frac.length < d) frac += "0";
    var r = roundDigits(parts[0] + frac, parts[0].length + d);
    var whole = r.slice(0, r.length - d).replace(/^0+(?=\d)/, "") || "0";
    return lead + whole + (d ? "." + r.slice(r.length - d) : "");
  }
  /* The first p significant digits of |v| (v finite, not 0), rounded half to even, and
     the decimal exponent of the first. */
  function sigDigits(v, p) {
    var parts = exactDecimal(Math.abs(v)), all = parts[0] + parts[1];
    var first = all.search(/[1-9]/), exp = parts[0].length - first - 1;
    var sig = roundDigits(all.slice(first), p);
    while (sig.length < p) sig += "0";
    if (sig.length > p) { sig = sig.slice(0, p); exp += 1; }
    return [sig, exp];
  }
  function pyExp(sig, exp, strip) {
    var m = sig.charAt(0), rest = strip ? sig.slice(1).replace(/0+$/, "") : sig.slice(1);
    return m + (rest ? "." + rest : "") + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
  }
  /* f"{v:.{p}g}" (sign: f"{v:+.{p}g}"); p 6 when not given, as "{v:g}". */
  function pyG(v, p, sign) {
    if (v === null || v === undefined) return "–";
    var special = pySpecial(v, sign);
    if (special !== null) return special;
    var lead = v < 0 || Object.is(v, -0) ? "-" : sign ? "+" : "";
    if (v === 0) return lead + "0";
    var got = sigDigits(v, p || 6), sig = got[0], exp = got[1], n = sig.length;
    if (exp < -4 || exp >= n) return lead + pyExp(sig, exp, true);
    var whole = exp >= 0 ? sig.slice(0, exp + 1) : "0";
    var frac = (exp >= 0 ? sig.slice(exp + 1) : "0".repeat(-exp - 1) + sig).replace(/0+$/, "");
    return lead + whole + (frac ? "." + frac : "");
  }
  /* toolkit.views.compare.num: at most `width` characters, three significant digits,
     fewer when needed; 0 for a float's rounding left-over. */
  function pyNum(v, width, sign) {
    if (v === null || v === undefined) return "–";
    if (Math.abs(v) < 1e-12) return "0";
    for (var digits = 3; digits >= 1; digits -= 1) {
      var out = pyG(v, digits, sign);
      if (out.length <= (width || 7)) return out;
    }
    var special = pySpecial(v, sign);
    if (special !== null) return special;
    var got = sigDigits(v, 1);
    return (v < 0 ? "-" : sign ? "+" : "") + pyExp(got[0], got[1], false);
  }
  /* toolkit.views.compare.p_text: <0.001 under a thousandth, else three decimals. */
  function pyP(p) { return p === null || p === undefined ? "–" : p < 0.001 ? "<0.001" : pyFixed(p, 3); }
  /* toolkit.rubrics.experiment.format_number: the float's shortest decimal form (as
     Python's repr and JavaScript's String write it) rounded half away from zero. */
  function paperFixed(v, d) {
    if (v === null || v === undefined || !Number.isFinite(v)) return "–";
    var a = Math.abs(v), text = String(a), e = text.indexOf("e");
    var mant = e < 0 ? text : text.slice(0, e), shift = e < 0 ? 0 : Number(text.slice(e + 1));
    var dot = mant.indexOf("."), digits = mant.replace(".", ""), point = (dot < 0 ? mant.length : dot) + shift;
    if (point <= 0) { digits = "0".repeat(1 - point) + digits; point = 1; }
    while (digits.length < point + d) digits += "0";
    var head = digits.slice(0, point + d);
    if (digits.charAt(point + d) >= "5") {
      var ds = head.split(""), i = ds.length - 1;
      while (i >= 0 && ds[i] === "9") { ds[i] = "0"; i -= 1; }
      if (i < 0) { ds.unshift("1"); point += 1; } else ds[i] = String(Number(ds[i]) + 1);
      head = ds.join("");
    }
    var whole = head.slice(0, point).replace(/^0+(?=\d)/, "") || "0", out = whole + (d ? "." + head.slice(point) : "");
    return (v < 0 && /[1-9]/.test(out) ? "-" : "") + out;
  }
  function bytes(n) {
    if (n === null || n === undefined) return "–";
    if (n < 1024) return n + " B";
    if (n < 1048576) return pyFixed(n / 1024, 1) + " KB";
    return pyFixed(n / 1048576, 1) + " MB";
  }
  function when(t) { return t ? String(t).replace("T", " ").replace(/(\.\d+)?(Z|[+-]00:?00)$/, " UTC") : "–"; }
  /* A number on a page: always a link to the evidence it came from. */
  function num(text, href, title) {
    return el("a", { class: "num", href: href, title: title || null, text: text });
  }
  function swatch(status) {
    var m = S.manifest;
    return (m && m.palette[status]) || (m && m.unknown) || { fill: "#757575", text: "#fff", ink: "#616161", symbol: "–" };
  }
  /* A status badge: colour from the one palette, with its symbol and word beside it. */
  function badge(status, href, compact, label, said) {
    var sw = swatch(status || "N/A");
    var word = said || status || "N/A";
    var attrs = {
      class: "badge",
      style: "background:" + sw.fill + ";color:" + sw.text,
      title: label ? label + ": " + word : word,
      text: compact ? sw.symbol : sw.symbol + " " + word,
    };
    if (compact) attrs["aria-label"] = attrs.title;
    if (href) { attrs.href = href; return el("a", attrs); }
    return el("span", attrs);
  }
  function severity(status) {
    var s = S.manifest ? S.manifest.severity[status] : undefined;
    return s === undefined ? 9 : s;
  }
  function loadScript(src) {
    var s = document.createElement("script");
    s.src = src;
    s.onerror = function () { tk.missing(src); };
    document.head.appendChild(s);
  }
  /* Look at data/build.js every `interval` seconds (a fresh script each time, so the
     browser does not answer from its cache; a look that fails mid-rebuild is ignored). */
  function watchBuild(w) {
    window.setInterval(function () {
      var s = document.createElement("script");
      s.src = "data/build.js?t=" + Date.now();
      s.onload = s.onerror = function () { s.remove(); };
      document.head.appendChild(s);
    }, Math.max(1, w.interval) * 1000);
  }
  function main() { return document.getElementById("main"); }
  function setMain(nodes, title) {
    var m = main();
    m.replaceChildren.apply(m, nodes.filter(function (n) { return n !== null && n !== undefined; }));
    document.title = title ? shown(title) + " · toolkit view" : "toolkit view";
  }
  function crumbs(parts) {
    var nav = document.getElementById("crumbs");
    var nodes = [];
    parts.forEach(function (p, i) {
      if (i) nodes.push(el("span", { class: "sep", text: "›", "aria-hidden": "true" }));
      nodes.push(p[1] ? el("a", { href: p[1], text: p[0] }) : el("span", { text: p[0] }));
    });
    nav.replaceChildren.apply(nav, nodes);
  }

  // ------------------------------------------------------------------ data in
  var tk = (window.__tk = {
    manifest: function (m) {
      S.manifest = m;
      for (var i = 0; i < m.index_shards; i++) loadScript("data/index-" + i + ".js");
      if (m.watch) watchBuild(m.watch);
    },
    /* `toolkit view --watch`: the build now on disk (data/build.js, looked at again
       every few seconds); a new one reloads the index, or offers a reload elsewhere. */
    build: function (id, runs, when) {
      if (!S.manifest || !S.manifest.watch || id === S.manifest.watch.build) return;
      if (!location.hash || location.hash === "#") { location.reload(); return; }
      var bar = document.getElementById("rebuilt");
      if (!bar) {
        bar = el("div", { id: "rebuilt", class: "rebuilt", role: "status" });
        document.body.insertBefore(bar, document.getElementById("main"));
      }
      var again = el("button", { type: "button", text: "Reload" });
      again.addEventListener("click", function () { location.reload(); });
      bar.replaceChildren(
        el("span", { text: "The runs changed (" + runs + " run(s), written " + when + "). " }), again);
    },
    index: function (n, rows) {
      var cols = S.manifest.columns;
      rows.forEach(function (r, at) {
        var row = { shard: n, at: at };
        cols.forEach(function (c, i) { row[c] = r[i]; });
        row.dims = row.statuses.length ? S.manifest.dimsets[row.statuses[0]] : [];
        row.sev = severity(row.verdict);
        row.pos = S.rows.length;
        S.rows.push(row);
        S.byId.set(row.id, row);
      });
      S.shardsIn += 1;
      if (S.shardsIn === S.manifest.index_shards) { S.view = null; route(); }
    },
    /* texts[i]: the run's text, or [its own text, the file of the transcript it shares];
       shared: that transcript's text by file; cal: [item, text] of each calibration
       disagreement (in the first shard). */
    search: function (n, start, texts, shared, cal) {
      if (!S.searchText) S.searchText = new Array(S.rows.length);
      for (var i = 0; i < texts.length; i++) S.searchText[start + i] = texts[i];
      Object.keys(shared || {}).forEach(function (k) { S.searchShared[k] = shared[k]; });
      if (cal && cal.length) S.calSearch = cal;
      S.searchIn += 1;
      if (S.searchIn === S.manifest.search_shards) {
        var w = S.searchWaiters; S.searchWaiters = [];
        w.forEach(function (f) { f(); });
      }
    },
    run: function (id, doc) {
      if (doc.transcript !== null && doc.transcript !== undefined && !doc.items.length) {
        /* The transcript this run shares with others (a chat's agents): read it once. */
        return withTranscript(doc.transcript, function (items) { doc.items = items; tk.run(id, doc); });
      }
      S.runs.set(id, doc);
      var w = S.waiting.get(id) || [];
      S.waiting.delete(id);
      w.forEach(function (f) { f(doc); });
    },
    transcript: function (file, items) {
      S.transcripts.set(file, items);
      var w = S.transcriptWaiting.get(file) || [];
      S.transcriptWaiting.delete(file);
      w.forEach(function (f) { f(items); });
    },
    compare: function (doc) {
      S.compare = doc;
      route();
    },
    calibration: function (doc) {
      S.calibration = doc;
      route();
    },
    missing: function (src) {
      setMain([el("h1", { text: "A file of this site is missing" }), el("p", { text: src + " could not be read: write the site again with toolkit view." })], "missing file");
    },
  });

  function withRun(id, f) {
    if (S.runs.has(id)) return f(S.runs.get(id));
    var row = S.byId.get(id);
    if (!row) return notFound("no run " + id);
    if (!S.waiting.has(id)) { S.waiting.set(id, []); loadScript("data/run/" + row.file + ".js"); }
    S.waiting.get(id).push(f);
  }
  function withTranscript(file, f) {
    if (S.transcripts.has(file)) return f(S.transcripts.get(file));
    if (!S.transcriptWaiting.has(file)) { S.transcriptWaiting.set(file, []); loadScript("data/transcript/" + file + ".js"); }
    S.transcriptWaiting.get(file).push(f);
  }
  /* Whether the i-th run's searched text (its own, or its own and its shared transcript's)
     holds q. */
  function searchHit(i, q) {
    var t = S.searchText && S.searchText[i];
    if (t === undefined || t === null) return false;
    if (typeof t === "string") return t.indexOf(q) !== -1;
    return t[0].indexOf(q) !== -1 || (S.searchShared[t[1]] || "").indexOf(q) !== -1;
  }
  function withSearch(f) {
    if (S.manifest.search_shards === 0 || S.searchIn === S.manifest.search_shards) return f();
    S.searchWaiters.push(f);
    if (S.searchWaiters.length === 1 && S.searchIn === 0) {
      for (var i = 0; i < S.manifest.search_shards; i++) loadScript("data/search-" + i + ".js");
    }
  }

  // ------------------------------------------------------------------ index
  var COLS = [
    { key: "title", label: "Run", filter: true },
    { key: "family", label: "Family", filter: true },
    { key: "rubric", label: "Rubric", filter: true },
    { key: "verdict", label: "Verdict", filter: true },
    { key: "statuses", label: "Dimensions", filter: true },
    { key: "size", label: "Size", filter: false, numeric: true },
    { key: "time", label: "Time", filter: true },
  ];
  function cellText(row, key) {
    if (key === "rubric") return ((row.rubric || "") + " " + (row.version || "") + " " + (row.epoch || "")).toLowerCase();
    if (key === "statuses") return statusText(row);
    if (key === "title") return (row.title + " " + row.id).toLowerCase();
    var v = row[key];
    return v === null || v === undefined ? "" : String(v).toLowerCase();
  }
  function compare(a, b, key) {
    var x, y;
    if (key === "verdict") { x = a.sev; y = b.sev; if (x === y) { x = a.verdict; y = b.verdict; } }
    else if (key === "statuses") { x = worst(a); y = worst(b); }
    else if (key === "size") { x = a.size === null ? -1 : a.size; y = b.size === null ? -1 : b.size; }
    else if (key === "rubric") { x = (a.rubric || "") + " " + (a.version || ""); y = (b.rubric || "") + " " + (b.version || ""); }
    else { x = a[key] || ""; y = b[key] || ""; }
    return x < y ? -1 : x > y ? 1 : a.pos - b.pos;
  }
  /* "key:status name ..." of a row's dimensions (what the Dimensions filter matches). */
  function statusText(row) {
    if (row.st === undefined) {
      row.st = row.dims.map(function (kn, i) { return kn[0] + ":" + row.statuses[i + 1] + " " + kn[1]; }).join(" ").toLowerCase();
    }
    return row.st;
  }
  function worst(row) {
    var w = 9;
    for (var i = 1; i < row.statuses.length; i++) w = Math.min(w, severity(row.statuses[i]));
    return w;
  }
  // ------------------------------------------------------------------ epochs
  /* A site of more than one measurement epoch (docs/epochs.md) groups its rows by epoch,
     each group where its first row sorts, under a heading naming its rubric, version and
     epoch: runs are never ranked across epochs without a label. A run without an epoch
     (not scored, or scored by its own harness) groups with its rubric's. */
  function epochKey(row) { return row.epoch || "~" + (row.rubric || "") + " " + (row.version || ""); }
  function epochs() {
    if (!S.epochs || S.epochs.rows !== S.rows.length) {
      var at = {}, list = [];
      S.rows.forEach(function (r) {
        var k = epochKey(r);
        if (!(k in at)) { at[k] = list.length; list.push(0); }
        list[at[k]] += 1;
      });
      S.epochs = { rows: S.rows.length, at: at, count: list };
    }
    return S.epochs;
  }
  /* The sorted rows, grouped by epoch in place: a group goes where its first row sorted. */
  function groupByEpoch(out) {
    if (epochs().count.length < 2) return;
    var rank = {}, n = 0, at = new Map();
    out.forEach(function (r, i) { var k = epochKey(r); if (!(k in rank)) rank[k] = n++; at.set(r, i); });
    out.sort(function (a, b) { return rank[epochKey(a)] - rank[epochKey(b)] || at.get(a) - at.get(b); });
  }
  function withEpochHeads(shown, trs) {
    var e = epochs();
    if (e.count.length < 2) return trs;
    var out = [];
    shown.forEach(function (row, i) {
      if (i === 0 || epochKey(row) !== epochKey(shown[i - 1])) {
        var what = (row.rubric ? row.rubric + " " + row.version : "not scored") +
          (row.epoch ? " · epoch " + row.epoch : " · no epoch") + " · " + e.count[e.at[epochKey(row)]] + " run(s) in this epoch";
        out.push(el("tr", { class: "epoch-head", "data-epoch": row.epoch || "" }, [el("th", { colspan: COLS.length, scope: "colgroup", text: what })]));
      }
      out.push(trs[i]);
    });
    return out;
  }

  /* Recompute the rows shown: filters, search, sort. Exposed for the benchmark. */
  function computeView() {
    var fs = Object.keys(S.filters).filter(function (k) { return S.filters[k]; });
    var q = S.query.trim().toLowerCase();
    var out = [];
    for (var i = 0; i < S.rows.length; i++) {
      var row = S.rows[i], keep = true;
      for (var j = 0; j < fs.length && keep; j++) {
        /* "arm": the runs under a folder of that name (a folder given to toolkit view,
           whose ids start "<arm>/", or one found under it: ".../<arm>/..."). */
        if (fs[j] === "arm") keep = row.id.toLowerCase().indexOf(S.filters.arm + "/") === 0 || row.id.toLowerCase().indexOf("/" + S.filters.arm + "/") !== -1;
        else keep = cellText(row, fs[j]).indexOf(S.filters[fs[j]]) !== -1;
      }
      if (keep && S.where) keep = S.where(row);
      if (keep && q) keep = searchHit(i, q);
      if (keep) out.push(row);
    }
    var col = S.sort.col, dir = S.sort.dir;
    out.sort(function (a, b) { return dir * compare(a, b, col); });
    groupByEpoch(out);
    S.view = out;
    return out.length;
  }
  tk.computeView = computeView;
  tk.state = S;

  function renderIndex() {
    crumbs([["Index", null]]);
    if (S.view === null) computeView();
    var m = S.manifest;
    var nodes = [el("h1", { text: "Every run (" + m.runs + ")" })];
    if (m.notes.length) {
      nodes.push(el("details", { class: "notes" }, [
        el("summary", { text: m.notes.length + " note(s): files left out as not runs, or read leniently" }),
        el("ul", null, m.notes.map(function (n) { return el("li", { text: n }); })),
      ]));
    }
    if (m.compare) {
      nodes.push(el("p", null, [el("a", { href: "#compare", id: "compare-link", text: "The comparison given to this site (toolkit compare)" })]));
    }
    if (m.calibration) {
      nodes.push(el("p", null, [el("a", { href: "#calibration", id: "calibration-link", text: "The calibration of the judge against human raters (toolkit calibrate)" })]));
    }
    nodes.push(experimentsLink());
    if (S.filters.arm) {
      nodes.push(el("p", null, ["Only the runs under the folder “" + S.filters.arm + "/”. ", el("a", { href: "#filter", text: "Show every run" })]));
    }
    var search = el("input", {
      type: "search", id: "q", placeholder: "Search actions, messages, summaries, reasoning", "aria-label": "Search inside runs", value: S.query,
    });
    var status = el("span", { id: "count", class: "muted", role: "status", "aria-live": "polite" });
    search.addEventListener("input", function () {
      S.query = search.value;
      S.page = 0;
      var go = function () { computeView(); drawBody(); };
      if (S.query.trim()) { status.textContent = "searching…"; withSearch(go); } else go();
    });
    nodes.push(el("div", { class: "controls" }, [
      el("label", { for: "q", text: "Search" }), search, status,
      el("span", { class: "muted", text: "Keys: / search · ↑ ↓ move · Enter open · PageUp/PageDown pages" }),
    ]));
    nodes.push(whereBox());
    var head = el("tr", null, COLS.map(function (c) {
      var sorted = S.sort.col === c.key;
      var b = el("button", {
        type: "button", "data-sort": c.key,
        text: c.label + (sorted ? (S.sort.dir > 0 ? " ▲" : " ▼") : ""),
        onclick: function () {
          S.sort = { col: c.key, dir: sorted ? -S.sort.dir : 1 };
          computeView(); route();
        },
      });
      return el("th", { scope: "col", class: c.numeric ? "n" : null, "aria-sort": sorted ? (S.sort.dir > 0 ? "ascending" : "descending") : "none" }, [b]);
    }));
    var filters = el("tr", { class: "filters" }, COLS.map(function (c) {
      if (!c.filter) return el("th", null, []);
      var input = el("input", { type: "search", "data-filter": c.key, "aria-label": "Filter " + c.label, placeholder: "filter", value: S.filters[c.key] || "" });
      input.addEventListener("input", function () {
        S.filters[c.key] = input.value.trim().toLowerCase();
        S.page = 0; computeView(); drawBody();
      });
      return el("th", null, [input]);
    }));
    var tbody = el("tbody", { id: "rows" });
    var pager = el("div", { class: "pager", id: "pager" });
    nodes.push(el("p", { id: "cal-hits", class: "muted", hidden: true }));
    nodes.push(el("table", { id: "index" }, [el("thead", null, [head, filters]), tbody]), pager);
    setMain(nodes, "Index");
    drawBody();
  }

  /* A path as one unbroken piece per folder with a line-break chance (<wbr>) after each
     "/": the run column narrows on a small screen by breaking an id between its folders,
     never inside a name. */
  function breakAfterSlashes(path) {
    var out = [];
    path.split("/").forEach(function (part, i, parts) {
      out.push(el("span", { class: "seg", text: part + (i < parts.length - 1 ? "/" : "") }));
      if (i < parts.length - 1) out.push(el("wbr"));
    });
    return out;
  }
  function drawBody() {
    var tbody = document.getElementById("rows");
    if (!tbody) return;
    var view = S.view, pages = Math.max(1, Math.ceil(view.length / PAGE));
    S.page = Math.min(S.page, pages - 1);
    var first = S.page * PAGE, shown = view.slice(first, first + PAGE);
    var trs = shown.map(function (row, i) {
      var href = runHref(row.id);
      var dots = el("span", { class: "dots" }, row.dims.map(function (kn, i) {
        return badge(row.statuses[i + 1], dimHref(row.id, kn[0]), true, kn[1]);
      }));
      return el("tr", { "data-row": first + i }, [
        el("td", null, [el("a", { href: href, class: "run" }, [row.title, row.title !== row.id ? el("span", { class: "id" }, breakAfterSlashes(row.id)) : null])]),
        el("td", { text: row.family }),
        el("td", { "data-rule": "", text: row.rubric ? row.rubric + " " + row.version + (row.epoch ? " · epoch " + row.epoch : "") : "–" }),
        el("td", null, [badge(row.verdict, href)]),
        el("td", null, [dots]),
        el("td", { class: "n" }, [row.size === null ? "–" : num(bytes(row.size), href, "bytes read for this run")]),
        el("td", null, [row.time ? num(when(row.time), href) : "–"]),
      ]);
    });
    tbody.replaceChildren.apply(tbody, withEpochHeads(shown, trs));
    drawCalHits();
    var count = document.getElementById("count");
    if (count) count.textContent = view.length === S.rows.length ? S.rows.length + " runs" : view.length + " of " + S.rows.length + " runs";
    var pager = document.getElementById("pager");
    pager.replaceChildren(
      el("button", { type: "button", disabled: S.page === 0, onclick: function () { S.page -= 1; drawBody(); }, text: "← Previous" }),
      el("span", { text: view.length ? "Rows " + (first + 1) + "–" + (first + shown.length) + " of " + view.length + " · page " + (S.page + 1) + " of " + pages : "No run matches." }),
      el("button", { type: "button", disabled: S.page >= pages - 1, onclick: function () { S.page += 1; drawBody(); }, text: "Next →" })
    );
  }

  /* The calibration's disagreements whose reasoning, notes or evidence hold the search
     text, each linked to its entry (they are no runs of the index). */
  function drawCalHits() {
    var box = document.getElementById("cal-hits");
    if (!box) return;
    var q = S.query.trim().toLowerCase(), hits = [];
    if (q) S.calSearch.forEach(function (c, i) { if (c[1].indexOf(q) !== -1) hits.push([c[0], i]); });
    box.hidden = !hits.length;
    if (!hits.length) { box.replaceChildren(); return; }
    var nodes = [hits.length + " calibration disagreement(s) also match: "];
    hits.forEach(function (h, k) {
      if (k) nodes.push(" · ");
      nodes.push(el("a", { href: "#calibration/item/" + h[1], class: "cal-hit", text: h[0] }));
    });
    box.replaceChildren.apply(box, nodes);
  }

  /* Keyboard: / focuses the search; ↑ ↓ move between runs; PageUp/PageDown turn pages. */
  document.addEventListener("keydown", function (e) {
    var active = document.activeElement;
    var typing = active && (active.tagName === "INPUT" || active.tagName === "TEXTAREA");
    if (e.key === "/" && !typing) {
      var q = document.getElementById("q");
      if (q) { e.preventDefault(); q.focus(); }
      return;
    }
    var tbody = document.getElementById("rows");
    if (!tbody || (typing && e.key !== "ArrowDown")) return;
    var links = Array.prototype.slice.call(tbody.querySelectorAll("a.run"));
    var at = links.indexOf(active);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (!links.length) return;
      e.preventDefault();
      var next = at === -1 ? 0 : Math.max(0, Math.min(links.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)));
      links[next].focus();
    } else if ((e.key === "PageDown" || e.key === "PageUp") && !typing) {
      e.preventDefault();
      var pages = Math.max(1, Math.ceil(S.view.length / PAGE));
      S.page = Math.max(0, Math.min(pages - 1, S.page + (e.key === "PageDown" ? 1 : -1)));
      drawBody();
      var first = tbody.querySelector("a.run");
      if (first) first.focus();
    }
  });

  // ------------------------------------------------------------------ run pages
  function facts(pairs) {
    var dl = el("dl", { class: "facts" });
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === "") return;
      dl.appendChild(el("dt", { text: p[0] }));
      dl.appendChild(el("dd", { "data-rule": p[2] ? "" : null }, [p[1]]));
    });
    return dl;
  }
  function runFacts(doc) {
    var pairs = [
      ["Family", doc.family],
      ["Rubric", doc.rubric ? doc.rubric + " " + doc.version : "not scored", true],
      ["Epoch", doc.epoch || null, true],
      ["Input digest", doc.input_digest || null, true],
      ["Verdict", el("span", null, [badge(doc.verdict), " ", doc.reason ? el("a", { href: runHref(doc.id), class: "detail", text: doc.reason }) : ""])],
      ["Source", doc.source, true],
      ["Size", doc.size === null ? null : num(bytes(doc.size), runHref(doc.id) + "/items", "bytes read: the transcript")],
      ["Time", doc.time ? num(when(doc.time), runHref(doc.id) + "/items", "when it ran: the transcript") : null],
    ];
    return facts(pairs);
  }
  function warnings(doc) {
    if (!doc.warnings.length) return null;
    return el("div", { class: "notes", role: "note" }, [el("strong", { text: "Warnings" }),
      el("ul", null, doc.warnings.map(function (w) { return el("li", { text: w }); }))]);
  }
  function dimTable(doc) {
    var head = el("tr", null, ["Dimension", "Value", "Status", "Green", "Red", "Detail", "Evidence"].map(function (h, i) {
      return el("th", { scope: "col", class: i === 1 || i === 6 ? "n" : null, text: h });
    }));
    var rows = doc.dims.map(function (d) {
      var href = dimHref(doc.id, d.key);
      return el("tr", null, [
        el("td", null, [el("a", { href: href, text: d.name })]),
        el("td", { class: "n" }, [num(fmtValue(d.value), href, "the evidence behind " + d.name)]),
        el("td", null, [badge(d.status, href)]),
        el("td", { "data-rule": "", text: d.green }),
        el("td", { "data-rule": "", text: d.red }),
        el("td", null, [el("a", { href: href, class: "detail", text: d.detail })]),
        el("td", { class: "n" }, [num(String(d.evidence.length), href, "evidence rows")]),
      ]);
    });
    return el("table", { class: "dims" }, [el("thead", null, [head]), el("tbody", null, rows)]);
  }
  function renderRun(doc) {
    crumbs([["Index", "#"], [doc.title, null]]);
    var nodes = [el("h1", { text: doc.title }), runFacts(doc), warnings(doc)];
    if (doc.dims.length) nodes.push(el("h2", { text: "Scorecard" }), dimTable(doc));
    nodes.push(el("h2", { text: "Transcript (" + doc.items.length + ")" }), transcript(doc, null));
    setMain(nodes, doc.title);
  }
  function renderItems(doc) {
    crumbs([["Index", "#"], [doc.title, runHref(doc.id)], ["Transcript", null]]);
    setMain([el("h1", { text: doc.title + ": transcript" }), runFacts(doc), transcript(doc, null)], doc.title);
  }

  /* Which evidence rows cite each item (for the transcript's "cited by" lines). */
  function citations(doc) {
    var by = {};
    doc.dims.forEach(function (d) {
      d.evidence.forEach(function (e) {
        if (e[4] === null) return;
        (by[e[4]] = by[e[4]] || []).push([d, e]);
      });
    });
    return by;
  }
  /* An evidence row's note: its own, or (null) the note its dimension's rows share,
     stored once as `each`, followed by the row's label. */
  function why(d, e) { return e[3] === null ? (d.each || "") + e[0] : e[3]; }
  /* What was scored at an item or window: dimension, evidence value, status, why. */
  function citeBlock(doc, cited, named) {
    var head = named ? "Scored on this window (dimension, what was judged, its value, why):" : "Scored here (dimension, its evidence value, this item's status, why):";
    return el("div", { class: "cites" }, [el("div", { class: "muted", text: head })].concat(
      cited.map(function (c) {
        return el("div", null, [el("a", { href: dimHref(doc.id, c[0].key), text: c[0].name }), " ",
          named ? el("strong", { text: c[1][0] }) : null, named ? " " : null,
          c[1][1] === null ? "" : num(fmtValue(c[1][1]), dimHref(doc.id, c[0].key)), " ", c[1][2] ? badge(c[1][2]) : null,
          why(c[0], c[1]) ? el("span", { class: "muted", text: " " + why(c[0], c[1]) }) : null]);
      })));
  }
  function transcript(doc, ranges) {
    var cites = citations(doc);
    return el("ol", { class: "transcript" }, doc.items.map(function (it, i) {
      var href = itemHref(doc.id, it.key);
      var current = ranges && ranges.some(function (r) { return i >= r[0] && i <= r[1]; }) ? it.key : null;
      var meta = it.facts.map(function (f) { return f[0] + ": " + f[1]; }).join(" · ");
      var cited = (cites[it.key] || []).filter(function (c) { return c[1][1] !== null || c[1][2]; });
      return el("li", { id: "item-" + it.key, class: it.key === current ? "current" : null, tabindex: it.key === current ? "-1" : null }, [
        el("div", null, [
          el("a", { href: href, class: "label", text: it.label }), " ",
          rawLink(doc, it.key), " ",
          it.who ? el("span", { class: "who", text: it.who }) : null, " ",
          it.status ? badge(it.status) : null,
        ]),
        el("div", { class: "text", text: it.text }),
        meta ? el("div", { class: "meta", text: meta }) : null,
        cited.length && it.key === current ? citeBlock(doc, cited) : null,
      ]);
    }));
  }
  function renderDim(doc, key) {
    var d = doc.dims.filter(function (x) { return x.key === key; })[0];
    if (!d) return notFound("no dimension " + key + " in " + doc.id);
    var href = dimHref(doc.id, d.key);
    crumbs([["Index", "#"], [doc.title, runHref(doc.id)], [d.name, null]]);
    var nodes = [
      el("h1", { text: d.name + " · " + doc.title }),
      facts([
        ["Value", num(fmtValue(d.value), href + "/evidence", "the evidence rows below")],
        ["Status", badge(d.status)],
        ["Green when", d.green, true],
        ["Red when", d.red, true],
        ["Detail", el("a", { href: href + "/evidence", class: "detail", text: d.detail })],
        ["Rubric", doc.rubric + " " + doc.version, true],
      ]),
    ];
    /* The chart: the dimension's own series when the run has one (a simulation
       dimension's trailing-window value at every tick), else its evidence rows. */
    var points = (d.points || d.evidence).filter(function (e) { return e[1] !== null; });
    /* A time series only: rows in the run's order, each at an item (not speaker pairs,
       raters or a persona dimension's propositions). */
    var series = doc.series !== false && points.every(function (e) { return e[4] !== null; });
    if (series && points.length > 1) nodes.push(el("h2", { text: "Over the run" }), chart(doc, d, points));
    nodes.push(el("h2", { id: "evidence", text: "Evidence (" + d.evidence.length + (d.evidence.length === 1 ? " row)" : " rows)") }));
    if (!d.evidence.length) nodes.push(el("p", { class: "muted", text: "This dimension has no evidence rows: " + d.detail }));
    else {
      var head = el("tr", null, ["At", "Value", "Status", "Why", "Record"].map(function (h, i) { return el("th", { scope: "col", class: i === 1 ? "n" : null, text: h }); }));
      var rows = d.evidence.map(function (e) {
        var to = e[4] === null ? runHref(doc.id) : itemHref(doc.id, e[4]);
        return el("tr", null, [
          el("td", null, [el("a", { href: to, text: e[0] })]),
          el("td", { class: "n" }, [e[1] === null ? "–" : num(fmtValue(e[1]), to)]),
          el("td", null, [e[2] ? badge(e[2], to) : "–"]),
          el("td", null, [why(d, e) ? el("a", { href: to, class: "detail", text: why(d, e) }) : ""]),
          el("td", null, [rawLink(doc, e[4])]),
        ]);
      });
      nodes.push(el("table", { class: "evidence" }, [el("thead", null, [head]), el("tbody", null, rows)]));
    }
    setMain(nodes, d.name + " · " + doc.title);
  }
  /* The dimension over the run, with its green and red lines (an SVG drawn here). */
  function chart(doc, d, points) {
    var W = 720, H = 220, L = 48, R = 12, T = 12, B = 28;
    var ys = points.map(function (e) { return e[1]; });
    d.lines.forEach(function (v) { if (v !== null) ys.push(v); });
    var lo = Math.min.apply(null, ys), hi = Math.max.apply(null, ys);
    var ends = lo === hi ? [lo] : [lo, hi];  /* the axis labels: the values themselves */
    if (lo === hi) { lo -= 1; hi += 1; }
    var pad = (hi - lo) * 0.08; lo -= pad; hi += pad;
    var x = function (i) { return L + (points.length === 1 ? 0 : (i * (W - L - R)) / (points.length - 1)); };
    var y = function (v) { return T + (H - T - B) * (1 - (v - lo) / (hi - lo)); };
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": d.name + " over the run, with its thresholds" });
    root.appendChild(svg("title", { text: d.name + ": " + points.length + " points" }));
    ends.forEach(function (v) {
      root.appendChild(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#57606a", text: fmtValue(v) }));
    });
    root.appendChild(svg("line", { x1: L, x2: L, y1: T, y2: H - B, stroke: "#d0d7de" }));
    var names = ["green", "red"], labels = [];
    d.lines.forEach(function (v, i) {
      if (v === null) return;
      var colour = i === 0 ? swatch("OK").ink : swatch("FAIL").ink;
      root.appendChild(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: colour, "stroke-dasharray": i === 0 ? "6 3" : "2 3", "stroke-width": 1.5 }));
      /* over the points (drawn last, below), on a white halo: readable where the series runs along the line */
      labels.push(svg("text", { x: W - R - 2, y: i === 0 ? y(v) - 4 : y(v) + 13, "text-anchor": "end", "font-size": 11, fill: colour, stroke: "#fff", "stroke-width": 3, "paint-order": "stroke", text: names[i] + " " + (i === 0 ? d.green : d.red) }));
    });
    var path = points.map(function (e, i) { return (i ? "L" : "M") + x(i).toFixed(1) + " " + y(e[1]).toFixed(1); }).join(" ");
    root.appendChild(svg("path", { d: path, fill: "none", stroke: "#57606a", "stroke-width": 1.2 }));
    points.forEach(function (e, i) {
      var sw = swatch(e[2] || "N/A");
      var a = svg("a", { href: e[4] === null ? runHref(doc.id) : itemHref(doc.id, e[4]) });
      a.appendChild(svg("circle", { cx: x(i), cy: y(e[1]), r: 3.5, fill: sw.fill, stroke: "#1f2328", "stroke-width": 0.5 }));
      a.appendChild(svg("title", { text: e[0] + ": " + fmtValue(e[1]) + (e[2] ? " " + e[2] : "") }));
      root.appendChild(a);
    });
    labels.forEach(function (t) { root.appendChild(t); });
    root.appendChild(svg("text", { x: L, y: H - 8, "font-size": 11, fill: "#57606a", text: points[0][0] }));
    root.appendChild(svg("text", { x: W - R, y: H - 8, "font-size": 11, fill: "#57606a", "text-anchor": "end", text: points[points.length - 1][0] }));
    return el("div", { class: "chart" }, [root, el("div", { class: "legend", text: "Dashed line: green threshold; dotted line: red threshold (drawn when the rule is one number). Each point links to its item." })]);
  }
  /* The items a key names, as [first, last] index ranges: one item's key, a window
     "FROM-TO" of two keys, or a comma-separated list of those (the messages a judge
     read: "s1-s5,s30-s52"); null when a part names no item. */
  function itemRanges(doc, key) {
    var at = {};
    doc.items.forEach(function (x, i) { at[x.key] = i; });
    var out = [];
    var parts = key.split(",");
    for (var p = 0; p < parts.length; p++) {
      var part = parts[p], found = null;
      if (at[part] !== undefined) found = [at[part], at[part]];
      for (var i = part.indexOf("-"); found === null && i !== -1; i = part.indexOf("-", i + 1)) {
        var a = at[part.slice(0, i)], b = at[part.slice(i + 1)];
        if (a !== undefined && b !== undefined) found = [Math.min(a, b), Math.max(a, b)];
      }
      if (found === null) return null;
      out.push(found);
    }
    return out;
  }
  function renderItem(doc, key) {
    var ranges = itemRanges(doc, key);
    if (!ranges) return notFound("no item " + key + " in " + doc.id);
    var one = ranges.length === 1 && ranges[0][0] === ranges[0][1];
    var first = doc.items[ranges[0][0]];
    var count = ranges.reduce(function (n, r) { return n + r[1] - r[0] + 1; }, 0);
    var label = one ? first.label : ranges.map(function (r) {
      return r[0] === r[1] ? doc.items[r[0]].label : doc.items[r[0]].label + " to " + doc.items[r[1]].label;
    }).join(", ");
    crumbs([["Index", "#"], [doc.title, runHref(doc.id)], [one ? label : key, null]]);
    var nodes = [el("h1", { text: (one ? label : "Window " + key) + " · " + doc.title })];
    if (!one) {
      nodes.push(el("p", { class: "muted", text: "The " + count + " items of " + label + ", marked in the transcript." }));
      var cited = (citations(doc)[key] || []).filter(function (c) { return c[1][1] !== null || c[1][2]; });
      if (cited.length) nodes.push(citeBlock(doc, cited, true));
    }
    nodes.push(transcript(doc, ranges));
    setMain(nodes, one ? label : "Window " + key);
    var li = document.getElementById("item-" + first.key);
    /* One item: brought to the middle. A window: the page from its top (what was scored
       on it, then the transcript with the window marked). */
    if (li && one) { li.scrollIntoView({ block: "center" }); li.focus({ preventScroll: true }); }
    else { window.scrollTo(0, 0); main().focus({ preventScroll: true }); }
  }
  function notFound(what) {
    crumbs([["Index", "#"], ["Not found", null]]);
    setMain([el("h1", { text: "Not found" }), el("p", { text: what })], "Not found");
  }

  // ------------------------------------------------------------------ comparison
  function filterHref(pairs) {
    return "#filter/" + pairs.map(function (p) { return enc(p[0]) + "/" + enc(p[1]); }).join("/");
  }
  /* The comparison of `toolkit compare --format json`: forest plot, dimensions, flips.
     Its JSON names no units, so numbers link to the runs of that dimension in each arm. */
  function renderCompare(c) {
    crumbs([["Index", "#"], ["Comparison", null]]);
    var armA = filterHref([["arm", c.a]]), armB = filterHref([["arm", c.b]]);
    var nodes = [
      el("h1", { text: c.family + ": " + c.b + " against " + c.a }),
      facts([
        ["A", el("a", { href: armA, text: c.a + " (" + c.runs_a + " runs)" })],
        ["B", el("a", { href: armB, text: c.b + " (" + c.runs_b + " runs)" })],
        ["Design", c.mode + ", paired by " + c.pair_by + ", " + c.pairs + " pairs", true],
        ["Test", c.test + ", " + c.correction + " correction, alpha " + c.alpha + ", interval level " + c.level, true],
        ["Rubric", "compare " + c.rubric_version, true],
      ]),
    ];
    if (c.notes && c.notes.length) nodes.push(el("div", { class: "notes", role: "note" }, [el("strong", { text: "Notes" }), el("ul", null, c.notes.map(function (n) { return el("li", { text: n }); }))]));
    var numeric = c.dimensions.filter(function (d) { return d.diff !== null && d.diff !== undefined; });
    if (numeric.length) nodes.push(el("h2", { text: "Differences B − A, with intervals" }), forest(c, numeric));
    var head = el("tr", null, ["Dimension", "Kind", "n", "Mean A", "Mean B", "B − A", "Interval", "p (adjusted)", "Outcome"].map(function (h, i) {
      return el("th", { scope: "col", class: i >= 2 && i <= 7 ? "n" : null, text: h });
    }));
    var rows = c.dimensions.map(function (d) {
      var both = filterHref([["statuses", d.dimension + ":"]]);
      var inA = filterHref([["arm", c.a], ["statuses", d.dimension + ":"]]);
      var inB = filterHref([["arm", c.b], ["statuses", d.dimension + ":"]]);
      var ci = d.ci_low === null || d.ci_low === undefined ? null : "[" + pyNum(d.ci_low, 6, true) + ", " + pyNum(d.ci_high, 6, true) + "]";  /* as compare prints them */
      return el("tr", null, [
        el("td", null, [el("a", { href: both, text: d.dimension })]),
        el("td", { text: d.kind }),
        el("td", { class: "n" }, [num(String(d.n), both)]),
        el("td", { class: "n" }, [d.mean_a === null ? "–" : num(pyNum(d.mean_a, 6), inA, "the runs of A")]),
        el("td", { class: "n" }, [d.mean_b === null ? "–" : num(pyNum(d.mean_b, 6), inB, "the runs of B")]),
        el("td", { class: "n" }, [d.diff === null ? "–" : num(pyNum(d.diff, 7, true), both)]),
        el("td", { class: "n" }, [ci ? num(ci, both) : "–"]),
        el("td", { class: "n" }, [d.p_adj === null ? "–" : num(pyP(d.p_adj), both)]),
        el("td", { text: d.outcome + (d.note ? " (" + d.note + ")" : "") }),
      ]);
    });
    nodes.push(el("h2", { text: "Dimensions" }), el("table", { class: "compare" }, [el("thead", null, [head]), el("tbody", null, rows)]));
    if (c.flips.length) {
      var fhead = el("tr", null, ["Dimension", "Both pass", "A pass → B fail", "A fail → B pass", "Both fail", "McNemar p"].map(function (h, i) {
        return el("th", { scope: "col", class: i ? "n" : null, text: h });
      }));
      var frows = c.flips.map(function (f) {
        var both = filterHref([["statuses", f.dimension + ":"]]);
        var failB = filterHref([["arm", c.b], ["statuses", f.dimension + ":"]]);
        var failA = filterHref([["arm", c.a], ["statuses", f.dimension + ":"]]);
        return el("tr", null, [
          el("td", null, [el("a", { href: both, text: f.dimension })]),
          el("td", { class: "n" }, [num(String(f.both_pass), both)]),
          el("td", { class: "n" }, [num(String(f.pass_to_fail), failB, "B's runs of this dimension")]),
          el("td", { class: "n" }, [num(String(f.fail_to_pass), failA, "A's runs of this dimension")]),
          el("td", { class: "n" }, [num(String(f.both_fail), both)]),
          el("td", { class: "n" }, [f.p === null ? "–" : num(pyP(f.p), both)]),
        ]);
      });
      nodes.push(el("h2", { text: "Flips (pass/fail outcomes of paired units)" }),
        el("p", { class: "muted", text: "The comparison's JSON counts flips without naming the units: each count links to the runs of that dimension on the side named." }),
        el("table", { class: "flips" }, [el("thead", null, [fhead]), el("tbody", null, frows)]));
    }
    setMain(nodes, "Comparison");
  }
  /* Each row on its own scale, symmetric about 0 (the dimensions have different units):
     what the plot shows is where each interval lies against "no difference". */
  function forest(c, dims) {
    var W = 720, row = 26, L = 190, R = 20, T = 10, H = T + row * dims.length + 30;
    var mid = L + (W - L - R) / 2, half = (W - L - R) / 2 - 6;
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": "Forest plot: each dimension's difference B minus A with its interval, each on its own scale" });
    root.appendChild(svg("line", { x1: mid, x2: mid, y1: T, y2: H - 24, stroke: "#57606a", "stroke-dasharray": "3 3" }));
    root.appendChild(svg("text", { x: mid, y: H - 8, "text-anchor": "middle", "font-size": 11, fill: "#57606a", text: "0 (no difference)" }));
    dims.forEach(function (d, i) {
      var yy = T + row * i + row / 2;
      var span = Math.max(Math.abs(d.diff), Math.abs(d.ci_low || 0), Math.abs(d.ci_high || 0)) || 1;
      var x = function (v) { return mid + (v / span) * half; };
      var sw = swatch(d.outcome === "better" ? "OK" : d.outcome === "worse" ? "FAIL" : "N/A");
      root.appendChild(svg("text", { x: L - 8, y: yy + 4, "text-anchor": "end", "font-size": 12, fill: "#1f2328", text: d.dimension }));
      if (d.ci_low !== null && d.ci_low !== undefined) root.appendChild(svg("line", { x1: x(d.ci_low), x2: x(d.ci_high), y1: yy, y2: yy, stroke: sw.fill, "stroke-width": 2 }));
      var a = svg("a", { href: filterHref([["statuses", d.dimension + ":"]]) });
      /* A white disc under the symbol, so the estimate stands out from its interval. */
      a.appendChild(svg("circle", { cx: x(d.diff), cy: yy, r: 7, fill: "#fff", stroke: sw.fill, "stroke-width": 1.5 }));
      a.appendChild(svg("text", { x: x(d.diff), y: yy + 5, "text-anchor": "middle", "font-size": 14, fill: sw.fill, "font-weight": 700, text: sw.symbol }));
      a.appendChild(svg("title", { text: d.dimension + ": " + pyNum(d.diff, 7, true) + " [" + pyNum(d.ci_low, 6, true) + ", " + pyNum(d.ci_high, 6, true) + "] (" + d.outcome + ")" }));
      root.appendChild(a);
    });
    return el("div", { class: "chart" }, [root, el("div", { class: "legend", text: "Symbol at B − A, line its interval, each row on its own scale (values in the table); ✓ better, ✗ worse, – no difference or within noise." })]);
  }

  // ------------------------------------------------------------------ calibration
  var CAL_FIELDS = ["item", "judge", "human_mean", "diff", "scores", "ratings", "notes", "reasoning", "evidence", "source", "anchor", "text_sha256", "rank"];
  function calHref(rest) { return "#calibration" + (rest ? "/" + rest : ""); }
  /* The group columns of the disagreements (agent, proposition, dimension, ...). */
  function calGroups(c) {
    var seen = [];
    c.disagreements.forEach(function (d) {
      Object.keys(d).forEach(function (k) {
        var v = d[k];
        if (v !== null && typeof v === "object") return;  /* lists and records are no group */
        if (CAL_FIELDS.indexOf(k) === -1 && seen.indexOf(k) === -1) seen.push(k);
      });
    });
    return seen;
  }
  /* Where a disagreement is: its item (or window) in a run of the site, else its own entry. */
  function calTarget(c, i) {
    var link = (c.links || [])[i];
    if (link && link.run) return link.item ? itemHref(link.run, link.item) : runHref(link.run);
    return calHref("item/" + i);
  }
  function calPasses(v, t) { return v !== null && v !== undefined && v >= t; }
  /* The disagreements a filter keeps: a group's value, or a cell of the confusion table. */
  function calFilter(c, kind, value) {
    var t = c.threshold;
    return c.disagreements.map(function (d, i) { return [d, i]; }).filter(function (p) {
      var d = p[0];
      if (!kind) return true;
      if (kind === "cell") {
        var j = calPasses(d.judge, t), h = calPasses(d.human_mean, t);
        return value === "both_pass" ? j && h : value === "judge_only" ? j && !h : value === "humans_only" ? !j && h : !j && !h;
      }
      return String(d[kind]) === value;
    });
  }
  function renderCalibration(c, parts) {
    var sub = parts[1] || "";
    if (sub === "item") return renderCalItem(c, Number(parts[2]));
    crumbs([["Index", "#"], ["Calibration", null]]);
    var groups = calGroups(c);
    var inside = c.band && c.band.inside;
    var nodes = [
      el("h1", { text: "Calibration: judge “" + c.judge + "” against " + c.humans.length + " humans" }),
      facts([
        ["Humans", c.humans.join(", "), true],
        ["Items", num(String(c.items), calHref("disagreements"), "the items, widest disagreement first")],
        ["Scored by one side only", c.unpaired_items ? num(String(c.unpaired_items), calHref("disagreements"), "left out of the per-item numbers") : null],
        ["Level", c.level, true],
        ["Pass mark", "an item passes at " + pyG(c.threshold) + " or above", true],
        ["Rubric", "calibrate " + c.rubric_version, true],
        /* the judge's epoch (docs/epochs.md): which calibrations may be compared */
        ["Judge epoch", "judge_epoch" in c ? (c.judge_epoch ? String(c.judge_epoch) : "not recorded (a scores file does not say)") : null, true],
        ["Scores digest", c.input_digest ? String(c.input_digest) : null, true],
        ["Gate", c.gate ? JSON.stringify(c.gate) : null, true],
      ]),
      el("h2", { id: "cal-agreement", text: "Can the judge take a human's seat?" }),
    ];
    var verdict = inside === null || inside === undefined ? badge("N/A", null, false, null, "no band (fewer than 3 humans)") : inside ? badge("OK", calHref("band"), false, null, "inside the band") : badge("FAIL", calHref("band"), false, null, "BELOW the band");
    var headline = [
      ["Alpha among the humans", c.alpha_humans, calHref("band"), "How far the humans agree with each other (Krippendorff, " + c.level + "); the baseline."],
      ["Alpha with the judge added", c.alpha_with_judge, calHref("band"), judgeAddedNote(c.alpha_with_judge, c.alpha_humans)],
      ["Humans' leave-one-out band", c.band ? [c.band.low, c.band.high] : null, calHref("band"), "The humans' alpha with each one left out: the panel's natural spread."],
      ["Judge in place of each human", "verdict", calHref("band"), "Inside when every alpha with the judge in a human's seat is at or above the band's low end; BELOW otherwise."],
      ["Spearman (judge vs human mean)", c.spearman, calHref("disagreements"), "Does the judge order the items as the humans do, whatever its offset?"],
      ["Weighted kappa, mean over humans", c.kappa_mean, calHref("kappa"), "Quadratic-weighted kappa of the judge against each human."],
    ];
    nodes.push(el("table", { class: "cal-headline" }, [el("thead", null, [el("tr", null, ["Measure", "Value", "What it says"].map(function (h, i) { return el("th", { scope: "col", class: i === 1 ? "n" : null, text: h }); }))]),
      el("tbody", null, headline.map(function (h) {
        var v = h[1], cell;
        if (v === "verdict") cell = verdict;
        else if (v === null || v === undefined) cell = "–";
        else if (Array.isArray(v)) cell = num("[" + pyFixed(v[0], 3) + ", " + pyFixed(v[1], 3) + "]", h[2]);
        else cell = num(pyFixed(v, 3), h[2]);
        return el("tr", null, [el("th", { scope: "row", text: h[0] }), el("td", { class: "n" }, [cell]), el("td", { class: "muted", text: h[3] })]);
      }))]));
    if (c.band && c.band.rows && c.band.rows.length) {
      nodes.push(el("h2", { id: "cal-band", text: "The judge in each human's seat" }),
        el("p", { class: "muted", text: "Band [" + pyFixed(c.band.low, 3) + ", " + pyFixed(c.band.high, 3) + "]: the humans' alpha with each one left out. Each value is computed over every item; the items behind it are listed below, widest disagreement first." }),
        el("table", { class: "cal-band" }, [el("thead", null, [el("tr", null, ["Human left out", "Alpha of the others", "Alpha with the judge in their seat", "Against the band"].map(function (h, i) { return el("th", { scope: "col", class: i === 1 || i === 2 ? "n" : null, text: h }); }))]),
          el("tbody", null, c.band.rows.map(function (r) {
            return el("tr", null, [el("td", { text: r.left_out }),
              el("td", { class: "n" }, [num(pyFixed(r.alpha_without, 3), calHref("disagreements"))]),
              el("td", { class: "n" }, [num(pyFixed(r.alpha_replaced, 3), calHref("disagreements"))]),
              el("td", null, [r.inside ? badge("OK", null, false, null, "inside") : badge("FAIL", null, false, null, "BELOW")])]);
          }))]));
    }
    if (c.alt_test) nodes.push.apply(nodes, calAltTest(c.alt_test));
    if (c.kappa && c.kappa.length) {
      nodes.push(el("h2", { id: "cal-kappa", text: "Weighted kappa, judge against each human" }),
        el("table", { class: "cal-kappa" }, [el("thead", null, [el("tr", null, ["Human", "Items both scored", "Kappa"].map(function (h, i) { return el("th", { scope: "col", class: i ? "n" : null, text: h }); }))]),
          el("tbody", null, c.kappa.map(function (k) {
            return el("tr", null, [el("td", { text: k.human }), el("td", { class: "n" }, [num(String(k.items), calHref("disagreements"))]),
              el("td", { class: "n" }, [k.kappa === null ? "–" : num(pyFixed(k.kappa, 3), calHref("disagreements"))])]);
          }))]));
    }
    if (c.bias.length) nodes.push(el("h2", { id: "cal-bias", text: "Bias: judge − human mean, per group, with intervals" }), biasPlot(c), biasTable(c));
    if (c.confusion) nodes.push(el("h2", { id: "cal-confusion", text: "Pass or fail at " + pyG(c.confusion.threshold) }), confusionTable(c));
    nodes.push.apply(nodes, disagreementsBlock(c, groups, parts));
    setMain(nodes, "Calibration");
    var at = { "alt-test": "cal-alt-test", band: "cal-band", kappa: "cal-kappa", bias: "cal-bias", confusion: "cal-confusion", disagreements: "cal-disagreements" }[sub];
    var target = at ? document.getElementById(at) : null;
    if (target) { target.setAttribute("tabindex", "-1"); target.scrollIntoView(); target.focus({ preventScroll: true }); }
    else { window.scrollTo(0, 0); main().focus({ preventScroll: true }); }
  }
  /* The alternative-annotator test of `toolkit calibrate` (its JSON's alt_test): the
     verdict, the winning rate (linked to the people it is the share of), epsilon (a
     setting), and per person left out the items and the advantage probabilities (linked
     to the items, as the band's alphas are). Every name is inserted as text. */
  function calAltTest(a) {
    var undef = a.passed === null || a.passed === undefined;
    var status = undef ? "N/A" : a.passed ? "PASS" : "FAIL";
    var word = undef ? "undefined: no person could be tested" : a.passed ? "the judge passes" : "the judge fails";
    var two = function (v, d) { return v === null || v === undefined ? null : pyFixed(Number(v), d || 2); };  /* calibration_alt._show */
    var link = function (t, to, title) { return t === null ? "–" : num(t, to, title); };
    var people = calHref("alt-test"), items = calHref("disagreements");
    var rows = a.raters || [];
    return [
      el("h2", { id: "cal-alt-test", text: "The alternative-annotator test (Calderon et al. 2025)" }),
      facts([
        ["Verdict", badge(status, null, false, null, word)],
        ["Winning rate", link(two(a.winning_rate), people, "the share of the people the judge wins; 0.50 passes")],
        ["Epsilon", String(a.epsilon) + " (the cost-benefit allowance)", true],
        ["Average advantage probability", link(two(a.advantage), people, "the mean of rho judge over the people")],
      ]),
      el("table", { class: "cal-alt-test" }, [el("thead", null, [el("tr", null, ["Person left out", "Items", "Rho judge", "Rho person", "p (BY)", "Judge wins"].map(function (h, i) { return el("th", { scope: "col", class: i && i < 5 ? "n" : null, text: h }); }))]),
        el("tbody", null, rows.map(function (r) {
          var wins = r.p_value === null || r.p_value === undefined ? "–" : r.rejected ? "yes" : "no";
          return el("tr", null, [el("td", { class: "quote", text: String(r.rater) }),
            el("td", { class: "n" }, [link(String(r.items), items, "the items this person rated")]),
            el("td", { class: "n" }, [link(two(r.rho_judge), items)]),
            el("td", { class: "n" }, [link(two(r.rho_rater), items)]),
            el("td", { class: "n" }, [link(two(r.p_adjusted, 4), items)]),
            el("td", { text: wins })]);
        }))]),
    ].concat(rows.some(function (r) { return r.note; }) ? [el("ul", { class: "muted" }, rows.filter(function (r) { return r.note; }).map(function (r) { return el("li", { class: "quote", text: r.note }); }))] : []);
  }
  function biasFilterHref(b) { return b.group === "all" ? calHref("disagreements") : calHref("disagreements/" + enc(b.group) + "/" + enc(String(b.value))); }
  function biasTable(c) {
    return el("table", { class: "cal-bias" }, [el("thead", null, [el("tr", null, ["Group", "Value", "Items", "Bias", "Interval"].map(function (h, i) { return el("th", { scope: "col", class: i >= 2 ? "n" : null, text: h }); }))]),
      el("tbody", null, c.bias.map(function (b) {
        var to = biasFilterHref(b);
        var ci = b.low === null || b.low === undefined ? null : "[" + pyFixed(b.low, 2, true) + ", " + pyFixed(b.high, 2, true) + "]";
        return el("tr", null, [el("td", { text: b.group === "all" ? "all items" : b.group }), el("td", null, [el("a", { href: to, text: String(b.value) })]),
          el("td", { class: "n" }, [num(String(b.items), to)]), el("td", { class: "n" }, [b.bias === null ? "–" : num(pyFixed(b.bias, 2, true), to)]),
          el("td", { class: "n" }, [ci ? num(ci, to) : "–"])]);
      }))]);
  }
  /* One scale for every row (bias is in the scores' own units): where each interval lies
     against 0 (no bias). An interval that excludes 0 is drawn in the warning colour. */
  function biasPlot(c) {
    var rows = c.bias.filter(function (b) { return b.bias !== null && b.bias !== undefined; });
    var W = 720, row = 22, L = 200, R = 20, T = 10, H = T + row * rows.length + 30;
    var span = 0;
    rows.forEach(function (b) { span = Math.max(span, Math.abs(b.bias), Math.abs(b.low || 0), Math.abs(b.high || 0)); });
    span = span || 1;
    var mid = L + (W - L - R) / 2, half = (W - L - R) / 2 - 6;
    var x = function (v) { return mid + (v / span) * half; };
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": "Bias of the judge per group with its interval, on one scale around 0" });
    root.appendChild(svg("line", { x1: mid, x2: mid, y1: T, y2: H - 24, stroke: "#57606a", "stroke-dasharray": "3 3" }));
    root.appendChild(svg("text", { x: mid, y: H - 8, "text-anchor": "middle", "font-size": 11, fill: "#57606a", text: "0 (no bias)" }));
    root.appendChild(svg("text", { x: x(-span), y: H - 8, "text-anchor": "start", "font-size": 11, fill: "#57606a", text: "−" + pyFixed(span, 2) + " judge harsher" }));
    root.appendChild(svg("text", { x: x(span), y: H - 8, "text-anchor": "end", "font-size": 11, fill: "#57606a", text: "+" + pyFixed(span, 2) + " judge more lenient" }));
    rows.forEach(function (b, i) {
      var yy = T + row * i + row / 2;
      var off = b.low !== null && b.low !== undefined && (b.low > 0 || b.high < 0);
      var sw = swatch(off ? "WARN" : "N/A");
      root.appendChild(svg("text", { x: L - 8, y: yy + 4, "text-anchor": "end", "font-size": 12, fill: "#1f2328", text: (b.group === "all" ? "all items" : b.group + " " + b.value) }));
      if (b.low !== null && b.low !== undefined) root.appendChild(svg("line", { x1: x(b.low), x2: x(b.high), y1: yy, y2: yy, stroke: off ? sw.ink : "#8c959f", "stroke-width": 2 }));
      var a = svg("a", { href: biasFilterHref(b) });
      a.appendChild(svg("circle", { cx: x(b.bias), cy: yy, r: 4, fill: off ? sw.fill : "#57606a", stroke: "#1f2328", "stroke-width": 0.5 }));
      a.appendChild(svg("title", { text: (b.group === "all" ? "all items" : b.group + " " + b.value) + ": " + pyFixed(b.bias, 2, true) + " [" + pyFixed(b.low, 2, true) + ", " + pyFixed(b.high, 2, true) + "]" }));
      root.appendChild(a);
    });
    return el("div", { class: "chart" }, [root, el("div", { class: "legend", text: "Dot at the bias, line its interval; " + swatch("WARN").symbol + " in the warning colour when the interval excludes 0 (a bias the data supports)." })]);
  }
  function confusionTable(c) {
    var k = c.confusion;
    var cell = function (name, n) { return el("td", { class: "n" }, [num(String(n), calHref("disagreements/cell/" + name), "the listed disagreements in this cell")]); };
    return el("div", null, [
      el("table", { class: "cal-confusion" }, [
        el("thead", null, [el("tr", null, [el("th", { text: "" }), el("th", { scope: "col", class: "n", text: "Humans pass" }), el("th", { scope: "col", class: "n", text: "Humans fail" })])]),
        el("tbody", null, [
          el("tr", null, [el("th", { scope: "row", text: "Judge passes" }), cell("both_pass", k.both_pass), cell("judge_only", k.judge_only)]),
          el("tr", null, [el("th", { scope: "row", text: "Judge fails" }), cell("humans_only", k.humans_only), cell("both_fail", k.both_fail)]),
        ]),
      ]),
      el("p", null, ["The two verdicts agree on ", k.agreement === null || k.agreement === undefined ? "–" : num(pyFixed(100 * k.agreement, 0) + "%", calHref("disagreements"), "the items"), " of the items. Judge passes, humans fail: what the judge's gate would let through."]),
    ]);
  }
  function disagreementsBlock(c, groups, parts) {
    var kind = parts[1] === "disagreements" && parts.length > 3 ? parts[2] : null;
    var value = kind ? parts[3] : null;
    var kept = calFilter(c, kind, value);
    var title = "Disagreements, widest first";
    var out = [el("h2", { id: "cal-disagreements", text: title })];
    var said = "The result lists the " + c.disagreements.length + " widest disagreements of " + c.items + " items.";
    if (kind) {
      var what = kind === "cell" ? "in the cell “" + value.replace("_", " ") + "”" : "with " + kind + " = " + value;
      out.push(el("p", null, [said + " Showing the " + kept.length + " " + what + ". ", el("a", { href: calHref("disagreements"), text: "Show all" })]));
    } else out.push(el("p", { class: "muted", text: said + " Each item links to where it is in this site when the calibration names its source." }));
    if (!kept.length) { out.push(el("p", { class: "muted", text: "None of the listed disagreements is in this group." })); return out; }
    var heads = ["#", "Item"].concat(groups, ["Judge", "Humans' mean", "Judge − humans", "Scores", "Where"]);
    var head = el("tr", null, heads.map(function (h, i) { return el("th", { scope: "col", class: h === "Judge" || h === "Humans' mean" || h === "Judge − humans" ? "n" : null, text: h }); }));
    var body = [];
    kept.forEach(function (p) {
      var d = p[0], i = p[1], to = calTarget(c, i), link = (c.links || [])[i] || {};
      body.push(el("tr", { id: "cal-row-" + i }, [
        el("td", { class: "n" }, [num(String(i + 1), calHref("item/" + i), "this disagreement in full")]),
        el("td", null, [el("a", { href: calHref("item/" + i) }, breakAfterSlashes(String(d.item)))]),
      ].concat(groups.map(function (g) {
        if (d[g] === null || d[g] === undefined) return el("td", { text: "–" });
        return el("td", null, [el("a", { href: calHref("disagreements/" + enc(g) + "/" + enc(String(d[g]))), title: "the disagreements with this " + g, text: String(d[g]) })]);
      }), [
        el("td", { class: "n" }, [d.judge === null ? "–" : num(pyG(d.judge), to)]),
        el("td", { class: "n" }, [d.human_mean === null ? "–" : num(pyFixed(d.human_mean, 2), to)]),
        el("td", { class: "n" }, [d.diff === null ? "–" : num(pyFixed(d.diff, 2, true), to)]),
        el("td", null, [d.scores ? num(String(d.scores), calHref("item/" + i), "each rater's score") : "–"]),
        el("td", null, [link.run ? el("a", { href: to, class: "where", text: link.run + (link.item ? " · " + link.item : "") })
          : el("span", { class: "muted quote", text: (link.why || "not in this site") + (d.anchor ? " (at " + d.anchor + ")" : "") })]),
      ])));
      var more = calDetails(d);
      if (more.length) body.push(el("tr", { class: "cal-more" }, [el("td", null, []), el("td", { colspan: heads.length - 1 }, more)]));
    });
    out.push(el("table", { class: "cal-disagreements" }, [el("thead", null, [head]), el("tbody", null, body)]));
    return out;
  }
  /* The judge's reasoning, the raters' notes and the evidence of one disagreement. */
  function calDetails(d) {
    var out = [];
    if (d.reasoning) out.push(el("div", null, [el("strong", { text: "Judge: " }), el("span", { class: "quote", text: d.reasoning })]));
    var notes = (d.notes || []).filter(function (n) { return n && n.note; });
    if (notes.length) out.push(el("div", null, [el("strong", { text: "Raters: " })].concat(notes.map(function (n, i) {
      return el("span", { class: "quote" }, [(i ? " · " : "") + (n.rater || "?") + ": ", el("span", { text: n.note })]);
    }))));
    if (d.evidence) out.push(el("div", null, [el("strong", { text: "Judged on: " }), el("span", { class: "quote", text: d.evidence })]));
    return out;
  }
  function renderCalItem(c, i) {
    var d = c.disagreements[i];
    if (!d) return notFound("no disagreement " + i + " in the calibration");
    var link = (c.links || [])[i] || {}, to = calTarget(c, i);
    crumbs([["Index", "#"], ["Calibration", "#calibration"], [String(d.item), null]]);
    var groups = calGroups(c);
    var pairs = [["Rank", "#" + (i + 1) + " of " + c.disagreements.length + " listed", true]];
    groups.forEach(function (g) { pairs.push([g, d[g] === null || d[g] === undefined ? null : String(d[g]), true]); });
    var here = link.run ? to : null;
    pairs.push(
      /* Unlinked, this page is the item's evidence itself: its scores as the JSON gives them. */
      ["Judge", d.judge === null ? null : (here ? num(pyG(d.judge), here) : pyG(d.judge))],
      ["Humans' mean", d.human_mean === null ? null : (here ? num(pyFixed(d.human_mean, 2), here) : pyFixed(d.human_mean, 2))],
      ["Scores", d.scores, true],
      ["Source", d.source ? d.source + (d.anchor ? " · " + d.anchor : "") : null, true],
      ["In this site", link.run ? el("a", { href: to, text: link.run + (link.item ? " · " + link.item : "") }) : link.why || "not in this site", !link.run],
      ["Text sha256", d.text_sha256, true]
    );
    var nodes = [el("h1", { text: "Item " + d.item }), facts(pairs)];
    if (link.run && link.why) nodes.push(el("p", { class: "muted", text: link.why }));
    var more = calDetails(d);
    if (more.length) nodes.push(el("div", { class: "cal-detail" }, more));
    else nodes.push(el("p", { class: "muted", text: "This calibration carries no reasoning, notes or evidence for the item." }));
    setMain(nodes, "Item " + d.item);
  }

  // ------------------------------------------------------------------ filters by value
  /* A filter box on the index: conditions on the runs' values, parsed here (no eval).
       filter    := condition { ("and" | "or") condition }   ("and" binds tighter)
       condition := "not" condition | "(" filter ")" | COLUMN OP VALUE
       OP        := = | == | != | < | <= | > | >= | ~ (holds the text) | !~ (does not)
       VALUE     := a number, a word, or text in '…' or "…"
     COLUMN: score (an iteration's weighted score), a dimension's key (its value:
     groundedness), KEY.status (its status word), or family, verdict, rubric, version,
     epoch, title, id, time (text) and size (bytes). Text is compared without case; a run without
     the column never matches. The state is the hash: #where/<the filter>. */
  var WHERE_TEXT = ["family", "verdict", "rubric", "version", "epoch", "title", "id", "time"];
  var WHERE_NUMBERS = ["score", "size"];
  var WHERE_OPS = ["<=", ">=", "!=", "==", "!~", "<", ">", "=", "~"];
  function WhereError(message) { this.message = message; }
  function quoteTok(t) { return "“" + t + "”"; }
  function whereTokens(text) {
    var out = [], i = 0;
    while (i < text.length) {
      var c = text[i];
      if (/\s/.test(c)) { i += 1; continue; }
      if (c === "(" || c === ")") { out.push({ kind: c, text: c, at: i }); i += 1; continue; }
      var op = null;
      for (var k = 0; k < WHERE_OPS.length && op === null; k++) if (text.substr(i, WHERE_OPS[k].length) === WHERE_OPS[k]) op = WHERE_OPS[k];
      if (op) { out.push({ kind: "op", text: op, at: i }); i += op.length; continue; }
      if (c === "!") throw new WhereError("unexpected " + quoteTok("!") + " at character " + (i + 1) + " (use != or !~)");
      if (c === "'" || c === "\"") {
        var end = text.indexOf(c, i + 1);
        if (end === -1) throw new WhereError("the quote " + quoteTok(text.slice(i, i + 12)) + " at character " + (i + 1) + " is never closed");
        out.push({ kind: "word", text: text.slice(i + 1, end), quoted: true, at: i });
        i = end + 1; continue;
      }
      var j = i;
      while (j < text.length && !/[\s()<>=!~'"]/.test(text[j])) j += 1;
      out.push({ kind: "word", text: text.slice(i, j), at: i });
      i = j;
    }
    return out;
  }
  /* Every dimension key of the site (each is a column of the filter). */
  function whereKeys() {
    if (!S.whereKeys) {
      var keys = Object.create(null);  /* no inherited names: "constructor" is no column */
      S.manifest.dimsets.forEach(function (set) { set.forEach(function (kn) { keys[kn[0].toLowerCase()] = kn[0]; }); });
      S.whereKeys = keys;
    }
    return S.whereKeys;
  }
  function nearest(name, names) {
    var best = null, dist = 4;
    names.forEach(function (n) {
      var a = name, b = n, d = [], i, j;
      for (i = 0; i <= a.length; i++) { d[i] = [i]; }
      for (j = 1; j <= b.length; j++) d[0][j] = j;
      for (i = 1; i <= a.length; i++) for (j = 1; j <= b.length; j++) {
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
      if (d[a.length][b.length] < dist) { dist = d[a.length][b.length]; best = n; }
    });
    return best;
  }
  /* A column of the filter: {name, numeric, get(row)}; an unknown one is an error naming it. */
  function whereColumn(tok) {
    var name = tok.text.toLowerCase(), keys = whereKeys();
    if (WHERE_TEXT.indexOf(name) !== -1) return { name: name, numeric: false, get: function (row) { return name === "version" ? row.version : row[name]; } };
    if (name === "size") return { name: name, numeric: true, get: function (row) { return row.size; } };
    if (name === "score") return { name: name, numeric: true, get: function (row) { return row.vals ? row.vals[0] : null; } };
    var status = /\.status$/.test(name), key = status ? name.slice(0, -7) : name;
    if (keys[key] !== undefined) {
      return { name: name, numeric: !status, get: function (row) {
        for (var i = 0; i < row.dims.length; i++) {
          if (row.dims[i][0].toLowerCase() === key) return status ? row.statuses[i + 1] : (row.vals ? row.vals[i + 1] : null);
        }
        return null;
      } };
    }
    var all = WHERE_NUMBERS.concat(WHERE_TEXT, Object.keys(keys));
    var guess = nearest(name, all);
    throw new WhereError("unknown column " + quoteTok(tok.text) + (guess ? " (did you mean " + quoteTok(guess) + "?)" : "") +
      ": the columns are score, size, " + WHERE_TEXT.join(", ") + ", a dimension's key (" + Object.keys(keys).slice(0, 4).join(", ") + "…) and KEY.status");
  }
  function whereCompare(col, op, tok) {
    if (col.numeric) {
      if (op === "~" || op === "!~") throw new WhereError(quoteTok(op) + " compares text; " + quoteTok(col.name) + " is a number (use = < <= > >=)");
      var want = tok.quoted ? NaN : Number(tok.text);
      if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(tok.text) || !isFinite(want)) {
        throw new WhereError(quoteTok(tok.text) + " is not a number (" + quoteTok(col.name) + " is compared as a number)");
      }
      return function (row) {
        var v = col.get(row);
        if (v === null || v === undefined) return false;
        return op === "<" ? v < want : op === "<=" ? v <= want : op === ">" ? v > want : op === ">=" ? v >= want : op === "!=" ? v !== want : v === want;
      };
    }
    var text = tok.text.toLowerCase();
    return function (row) {
      var v = col.get(row);
      if (v === null || v === undefined) return false;
      v = String(v).toLowerCase();
      return op === "~" ? v.indexOf(text) !== -1 : op === "!~" ? v.indexOf(text) === -1 : op === "<" ? v < text : op === "<=" ? v <= text
        : op === ">" ? v > text : op === ">=" ? v >= text : op === "!=" ? v !== text : v === text;
    };
  }
  /* The filter as a function of an index row; a WhereError names the token that is wrong. */
  var WHERE_MAX_CHARS = 2000, WHERE_MAX_DEPTH = 64;
  function whereParse(text) {
    if (text.length > WHERE_MAX_CHARS) throw new WhereError("the filter is " + text.length + " characters long; at most " + WHERE_MAX_CHARS);
    var toks = whereTokens(text), at = 0, depth = 0;
    function peek() { return toks[at]; }
    function isWord(t, w) { return t && t.kind === "word" && !t.quoted && t.text.toLowerCase() === w; }
    function found(t) { return t ? "found " + quoteTok(t.text) : "the filter ends there"; }
    function condition() {
      var t = peek();
      if (isWord(t, "not") || (t && t.kind === "(")) {
        depth += 1;  /* a link of 20,000 "(" would overflow the stack: a filter error instead */
        if (depth > WHERE_MAX_DEPTH) throw new WhereError("more than " + WHERE_MAX_DEPTH + " nested parentheses or nots at character " + (t.at + 1));
      }
      if (isWord(t, "not")) { at += 1; var inner = condition(); depth -= 1; return function (row) { return !inner(row); }; }
      if (t && t.kind === "(") {
        at += 1;
        var f = filter();
        depth -= 1;
        if (!peek() || peek().kind !== ")") throw new WhereError("the " + quoteTok("(") + " at character " + (t.at + 1) + " is never closed: " + found(peek()));
        at += 1;
        return f;
      }
      if (!t || t.kind !== "word" || t.quoted) throw new WhereError("expected a column name, " + found(t));
      at += 1;
      var col = whereColumn(t), op = peek();
      if (!op || op.kind !== "op") throw new WhereError("expected an operator (= != < <= > >= ~ !~) after " + quoteTok(t.text) + ", " + found(op));
      at += 1;
      var v = peek();
      if (!v || v.kind !== "word") throw new WhereError("expected a value after " + quoteTok(t.text + " " + op.text) + ", " + found(v));
      at += 1;
      return whereCompare(col, op.text === "==" ? "=" : op.text, v);
    }
    function conjunction() {
      var parts = [condition()];
      while (isWord(peek(), "and")) { at += 1; parts.push(condition()); }
      return parts.length === 1 ? parts[0] : function (row) { return parts.every(function (p) { return p(row); }); };
    }
    function filter() {
      var parts = [conjunction()];
      while (isWord(peek(), "or")) { at += 1; parts.push(conjunction()); }
      return parts.length === 1 ? parts[0] : function (row) { return parts.some(function (p) { return p(row); }); };
    }
    if (!toks.length) return null;
    var fn = filter();
    if (at < toks.length) {
      var extra = toks[at];
      throw new WhereError("unexpected " + quoteTok(extra.text) + " at character " + (extra.at + 1) + (extra.kind === ")" ? " (no “(” opens it)" : " (join conditions with and / or)"));
    }
    return fn;
  }
  tk.whereParse = function (text) { try { whereParse(text); return null; } catch (e) { if (e instanceof WhereError) return e.message; throw e; } };
  /* The values of each index row (score, then each dimension's), read on first use. */
  tk.values = function (n, rows) {
    S.valueShards[n] = rows;
    S.valuesIn += 1;
    if (S.valuesIn === S.manifest.index_shards) {
      S.rows.forEach(function (row) { var shard = S.valueShards[row.shard]; row.vals = shard ? shard[row.at] : null; });
      var w = S.valueWaiters; S.valueWaiters = [];
      w.forEach(function (f) { f(); });
    }
  };
  function withValues(f) {
    if (S.valuesIn === S.manifest.index_shards) return f();
    S.valueWaiters.push(f);
    if (S.valueWaiters.length === 1 && !S.valuesAsked) {
      S.valuesAsked = true;
      for (var i = 0; i < S.manifest.index_shards; i++) loadScript("data/values-" + i + ".js");
    }
  }
  /* Set the filter from its text: S.where (the row test) or S.whereError (the message). */
  function setWhere(text) {
    S.whereText = text;
    S.where = null;
    S.whereError = "";
    try { S.where = whereParse(text.trim()); } catch (e) {
      if (!(e instanceof WhereError)) throw e;
      S.whereError = e.message;
    }
  }
  function whereHash() { return S.whereText.trim() ? "#where/" + enc(S.whereText.trim()) : "#"; }
  function drawWhereMessage() {
    var msg = document.getElementById("where-msg");
    if (!msg) return;
    msg.hidden = !S.whereError;
    msg.textContent = S.whereError ? "Filter not applied: " + S.whereError : "";
  }
  /* The filter box of the index (its form: Enter applies it; an empty box clears it). */
  function whereBox() {
    var input = el("input", {
      type: "search", id: "where", value: S.whereText || "", spellcheck: "false", autocomplete: "off",
      placeholder: "groundedness < 0.9 and verdict = FAILED", "aria-label": "Filter runs by value", "aria-describedby": "where-msg",
    });
    var apply = function (e) {
      if (e) e.preventDefault();
      setWhere(input.value);
      history.replaceState(null, "", whereHash());
      drawWhereMessage();
      withValues(function () { S.page = 0; computeView(); drawBody(); });
    };
    input.addEventListener("input", function () { if (!input.value.trim()) apply(); });
    return el("form", { class: "controls where", id: "where-form", onsubmit: apply }, [
      el("label", { for: "where", text: "Filter" }), input,
      el("button", { type: "submit", text: "Apply" }),
      el("a", { href: "#help/filter", class: "muted", text: "how to write a filter" }),
      el("p", { id: "where-msg", class: "where-msg", role: "alert", hidden: !S.whereError, text: S.whereError ? "Filter not applied: " + S.whereError : "" }),
    ]);
  }
  function renderWhereHelp() {
    crumbs([["Index", "#"], ["Filter help", null]]);
    var lines = [
      ["groundedness < 0.9", "a dimension's value, by its key"],
      ["verdict = FAILED", "text columns: family, verdict, rubric, version, epoch, title, id, time (no case)"],
      ["score >= 0.7 and family = outcome", "score: an iteration's weighted score; and binds tighter than or"],
      ["refusal_cluster.status = FAIL", "KEY.status: a dimension's status word"],
      ["not (family = simulation or title ~ 'harbor')", "~ holds the text, !~ does not; quote text with spaces"],
      ["size > 100000", "bytes read for the run"],
    ];
    setMain([el("h1", { text: "Filters by value" }),
      el("p", { text: "A filter is conditions COLUMN OP VALUE joined with and / or, with not and parentheses. OP is one of = != < <= > >= ~ !~. A run without the column (a discussion game has no groundedness) never matches. The filter is kept in the address (#where/…), so a link shows the same runs." }),
      el("table", null, [el("thead", null, [el("tr", null, [el("th", { text: "Filter" }), el("th", { text: "What it matches" })])]),
        el("tbody", null, lines.map(function (l) {
          return el("tr", null, [el("td", null, [el("a", { href: "#where/" + enc(l[0]), text: l[0] })]), el("td", { "data-rule": "", text: l[1] })]);
        }))]),
    ], "Filter help");
  }

  // ------------------------------------------------------------------ raw records
  /* A tick, message or iteration as the toolkit loaded it (data/raw/NNNNNN.js, read when
     first opened): where it was read and its row as JSON, bounded when the site was
     written (long text and lists cut, saying how much); set as text, never as HTML. */
  var RAW_MAX_CHARS = 200000;
  tk.raw = function (file, doc) {
    S.raws.set(file, doc);
    var w = S.rawWaiting.get(file) || [];
    S.rawWaiting.delete(file);
    w.forEach(function (f) { f(doc); });
  };
  function withRaw(file, f) {
    if (S.raws.has(file)) return f(S.raws.get(file));
    if (!S.rawWaiting.has(file)) { S.rawWaiting.set(file, []); loadScript("data/raw/" + file + ".js"); }
    S.rawWaiting.get(file).push(f);
  }
  function rawHref(id, key) { return runHref(id) + "/raw/" + enc(key); }
  /* The link to an item's raw record, when the run has raw records and the key names one item. */
  function rawLink(doc, key) {
    if (!doc.raw || key === null || key === undefined) return null;
    if (!doc.items.some(function (it) { return it.key === key; })) return null;
    return el("a", { href: rawHref(doc.id, key), class: "raw-link", title: "the record as loaded", text: "raw" });
  }
  function renderRaw(doc, key) {
    var item = doc.items.filter(function (it) { return it.key === key; })[0];
    if (!item || !doc.raw) return notFound("no raw record " + key + " in " + doc.id);
    withRaw(doc.raw, function (raws) {
      var rec = raws[key];
      if (!rec) return notFound("no raw record " + key + " in " + doc.id);
      var text = JSON.stringify(rec.record, null, 2);
      if (text.length > RAW_MAX_CHARS) text = text.slice(0, RAW_MAX_CHARS) + "\n… [cut: " + (text.length - RAW_MAX_CHARS) + " more characters]";
      crumbs([["Index", "#"], [doc.title, runHref(doc.id)], [item.label, itemHref(doc.id, key)], ["Raw record", null]]);
      setMain([
        el("h1", { text: "Raw record · " + item.label + " · " + doc.title }),
        facts([
          ["Read from", rec.origin || "–", true],
          ["In the transcript", el("a", { href: itemHref(doc.id, key), text: item.label })],
          ["Run", el("a", { href: runHref(doc.id), text: doc.title })],
        ]),
        el("p", { class: "muted", text: "The " + doc.family + " record as the toolkit loaded it (its normalised row). Text longer than 2,000 characters and lists longer than 100 items are cut where marked, saying how much." }),
        el("pre", { class: "raw", id: "raw-record", tabindex: "0", text: text }),
        rec.original === undefined ? null : el("h2", { text: "The file as written" }),
        rec.original === undefined ? null : el("pre", { class: "raw", id: "raw-original", tabindex: "0", text: rec.original }),
      ], "Raw record · " + item.label);
      window.scrollTo(0, 0);
      main().focus({ preventScroll: true });
    });
  }

  // ------------------------------------------------------------------ experiments
  /* Treatment-vs-control experiments found beside the runs (data/experiments.js): per
     results file, each experiment's Welch's t-test table (as toolkit experiment prints
     it) and the interval of each difference, drawn against 0. */
  tk.experiments = function (list) { S.experiments = list; route(); };
  function experimentsLink() {
    var n = S.manifest.experiments;
    if (!n) return null;
    return el("p", null, [el("a", { href: "#experiments", id: "experiments-link", text: "Treatment-vs-control experiments (" + n + " file" + (n === 1 ? "" : "s") + ", toolkit experiment)" })]);
  }
  /* Numbers as toolkit experiment prints them (format_number: half away from zero, to the
     rubric's decimals, which its p column shows with one more). */
  function expDecimals(metrics) {
    for (var i = 0; i < metrics.length; i++) {
      var m = /^\d+\.(\d+)\*?$/.exec(metrics[i][1].p_display || "");
      if (m) return m[1].length - 1;
    }
    return 2;  /* the default rubric's */
  }
  function meanSd(m, sd, d) { return m === null || m === undefined ? "–" : paperFixed(m, d) + (sd === null || sd === undefined ? "" : " (" + paperFixed(sd, d) + ")"); }
  function expInterval(c, d) { return c.ci_low === null || c.ci_low === undefined ? "–" : "[" + paperFixed(c.ci_low, d) + ", " + paperFixed(c.ci_high, d) + "]"; }
  /* The difference of each metric with its interval, on one scale around 0. */
  function effectPlot(name, metrics) {
    var d = expDecimals(metrics);
    var rows = metrics.filter(function (m) { return m[1].delta !== null && m[1].delta !== undefined; });
    if (!rows.length) return null;
    var W = 720, row = 24, L = 220, R = 20, T = 10, H = T + row * rows.length + 30, span = 0;
    rows.forEach(function (m) { var c = m[1]; span = Math.max(span, Math.abs(c.delta), Math.abs(c.ci_low || 0), Math.abs(c.ci_high || 0)); });
    span = span || 1;
    var mid = L + (W - L - R) / 2, half = (W - L - R) / 2 - 6;
    var x = function (v) { return mid + (v / span) * half; };
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": "Each metric's difference (treatment − control) with its interval, " + name });
    root.appendChild(svg("line", { x1: mid, x2: mid, y1: T, y2: H - 24, stroke: "#57606a", "stroke-dasharray": "3 3" }));
    root.appendChild(svg("text", { x: mid, y: H - 8, "text-anchor": "middle", "font-size": 11, fill: "#57606a", text: "0 (no difference)" }));
    root.appendChild(svg("text", { x: x(-span), y: H - 8, "font-size": 11, fill: "#57606a", text: "−" + paperFixed(span, d) + " control higher" }));
    root.appendChild(svg("text", { x: x(span), y: H - 8, "text-anchor": "end", "font-size": 11, fill: "#57606a", text: "+" + paperFixed(span, d) + " treatment higher" }));
    rows.forEach(function (m, i) {
      var c = m[1], yy = T + row * i + row / 2, sig = c.significant === true;
      var sw = swatch(sig ? "WARN" : "N/A");
      root.appendChild(svg("text", { x: L - 8, y: yy + 4, "text-anchor": "end", "font-size": 12, fill: "#1f2328", text: m[0] }));
      if (c.ci_low !== null && c.ci_low !== undefined) root.appendChild(svg("line", { x1: x(c.ci_low), x2: x(c.ci_high), y1: yy, y2: yy, stroke: sig ? sw.ink : "#8c959f", "stroke-width": 2 }));
      root.appendChild(svg("circle", { cx: x(c.delta), cy: yy, r: 4, fill: sig ? sw.fill : "#57606a", stroke: "#1f2328", "stroke-width": 0.5 }));
      root.appendChild(svg("title", { text: m[0] + ": " + paperFixed(c.delta, d) + " " + expInterval(c, d) }));
    });
    return el("div", { class: "chart" }, [root, el("div", { class: "legend", text: "Dot at the difference (treatment − control), line its interval at 1 − alpha; in the warning colour when significant (the interval excludes 0)." })]);
  }
  /* Text naming a command-line option ("--test mannwhitney") as nodes, each option with
     its word in one piece: a line never breaks after its "--". */
  function keepOptions(text) {
    return text.split(/(--[a-z][\w-]*(?: [a-z]\w*)?)/).map(function (part, i) {
      return i % 2 ? el("span", { class: "opt", text: part }) : part;
    }).filter(function (part) { return part !== ""; });
  }
  function experimentTable(metrics) {
    var d = expDecimals(metrics);
    /* no-break spaces: "n (c / t)" and "Cohen's d" are never split (the page showed "n (c /" over "t)") */
    var heads = ["Metric", "Control mean (sd)", "Treatment mean (sd)", "n\u00a0(c\u00a0/\u00a0t)", "Difference", "Interval", "p", "Cohen's\u00a0d", "Significant", "Assumptions"];
    return el("table", { class: "experiment" }, [
      el("thead", null, [el("tr", null, heads.map(function (h, i) { return el("th", { scope: "col", class: i >= 1 && i <= 7 ? "n" : null, text: h }); }))]),
      el("tbody", null, metrics.map(function (m) {
        var c = m[1], a = c.assumptions || {};
        return el("tr", null, [
          el("td", { text: m[0] }),
          el("td", { class: "n", text: meanSd(c.c_mean, c.c_sd, d) }),
          el("td", { class: "n", text: meanSd(c.t_mean, c.t_sd, d) }),
          el("td", { class: "n", text: (c.c_n === null || c.c_n === undefined ? "–" : c.c_n) + " / " + (c.t_n === null || c.t_n === undefined ? "–" : c.t_n) }),
          el("td", { class: "n", text: paperFixed(c.delta, d) }),
          el("td", { class: "n", text: expInterval(c, d) }),
          el("td", { class: "n", text: c.p_display || "–" }),
          el("td", { class: "n", text: paperFixed(c.cohens_d, d) }),
          el("td", null, [c.significant === true ? badge("WARN", null, false, null, "yes") : c.significant === false ? "no" : (c.absent_reason || "–")]),
          el("td", { class: "muted" }, keepOptions(a.hint || (a.normal === undefined ? "" : "normal, equal variances: " + (a.normal ? "yes" : "no") + ", " + (a.equal_variances ? "yes" : "no")))),
        ]);
      })),
    ]);
  }
  function renderExperiments(list) {
    crumbs([["Index", "#"], ["Experiments", null]]);
    var nodes = [el("h1", { text: "Experiments (" + list.length + " file" + (list.length === 1 ? "" : "s") + ")" }),
      el("p", { class: "muted", text: "Treatment against control, as toolkit experiment FILE tests them: per experiment and metric, the groups' means, the difference (treatment − control) with its interval, p and Cohen's d." })];
    list.forEach(function (f, n) {
      var r = f.report;
      nodes.push(el("h2", { id: "experiment-" + n, text: f.source }));
      nodes.push(el("p", { class: "muted", text: r.test + " · alpha " + pyG(r.alpha) + " · rubric " + r.rubric + " " + r.rubric_version }));
      if (r.warnings && r.warnings.length) nodes.push(el("div", { class: "notes", role: "note" }, [el("ul", null, r.warnings.map(function (w) { return el("li", { text: w }); }))]));
      Object.keys(r.experiments).forEach(function (name) {
        var metrics = Object.keys(r.experiments[name].metrics).map(function (k) { return [k, r.experiments[name].metrics[k]]; });
        nodes.push(el("h3", { text: name }), effectPlot(name, metrics), experimentTable(metrics));
      });
    });
    setMain(nodes, "Experiments");
  }

  // ------------------------------------------------------------------ routing
  function route() {
    if (!S.manifest || S.shardsIn < S.manifest.index_shards) return;
    var parts = location.hash.replace(/^#\/?/, "").split("/").map(function (p) {
      try { return decodeURIComponent(p); } catch (e) { return p; }
    });
    if (parts[0] === "compare") {
      if (!S.manifest.compare) return notFound("this site was written without --compare");
      if (!S.compare) { loadScript("data/compare.js"); return; }
      renderCompare(S.compare);
      return;
    }
    if (parts[0] === "calibration") {
      if (!S.manifest.calibration) return notFound("this site was written without a calibration");
      if (!S.calibration) { loadScript("data/calibration.js"); return; }
      renderCalibration(S.calibration, parts);
      return;
    }
    if (parts[0] === "where") {
      /* #where/FILTER: the index filtered by value (FILTER encoded whole). */
      setWhere(parts.slice(1).join("/"));
      S.page = 0;
      withValues(function () { computeView(); renderIndex(); });
      return;
    }
    if (parts[0] === "help" && parts[1] === "filter") return renderWhereHelp();
    if (parts[0] === "experiments") {
      if (!S.manifest.experiments) return notFound("no experiments were found beside these runs");
      if (!S.experiments) { loadScript("data/experiments.js"); return; }
      renderExperiments(S.experiments);
      window.scrollTo(0, 0);
      return;
    }
    if (parts[0] === "filter") {
      /* #filter/COLUMN/TEXT[/COLUMN/TEXT...]: the index with those filters. */
      S.filters = {};
      S.query = "";
      for (var f = 1; f + 1 < parts.length; f += 2) S.filters[parts[f]] = parts[f + 1].toLowerCase();
      S.page = 0;
      computeView();
      renderIndex();
      return;
    }
    if (parts[0] !== "run" || parts.length < 2) { renderIndex(); return; }
    var id = parts[1];
    withRun(id, function (doc) {
      if (parts[2] === "dim" && parts.length > 3) {
        renderDim(doc, parts[3]);
        if (parts[4] === "evidence") {
          var ev = document.getElementById("evidence");
          if (ev) { ev.setAttribute("tabindex", "-1"); ev.scrollIntoView(); ev.focus(); return; }
        }
      }
      else if (parts[2] === "item" && parts.length > 3) renderItem(doc, parts[3]);
      else if (parts[2] === "items") renderItems(doc);
      else if (parts[2] === "raw" && parts.length > 3) return renderRaw(doc, parts[3]);
      else renderRun(doc);
      if (parts[2] !== "item") { window.scrollTo(0, 0); main().focus({ preventScroll: true }); }
    });
  }
  window.addEventListener("hashchange", route);
})();
