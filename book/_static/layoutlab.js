/* Layout Lab: the ☰ (chapters) and contents buttons work on every screen.
   The themes handle clicks on the first button of each class; pass the others' clicks to it. */
(function () {
  function wire() {
    ["primary-toggle", "secondary-toggle"].forEach(function (cls) {
      var all = document.querySelectorAll("button." + cls);
      for (var i = 1; i < all.length; i++) {
        all[i].addEventListener("click", function (e) {
          e.preventDefault();
          e.stopPropagation();
          all[0].click();
        });
      }
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();

/* Cutting a drawing into pieces that fit a box: what a narrow screen shows instead of a wide
   figure. The drawing's empty margins and the empty gaps between its panels split it into blocks;
   a heading stays with the block under it; a block still too large is cut between its texts
   (never through one), down columns and then across rows, and a grid's row labels come again
   before each later part; a line of text longer than a piece is written out as wrapping text.
   The pieces, each an <svg> copy of the drawing showing its part, are set in reading order on
   rows of the box's width. window.lkPieces(svg) measures a drawing once; window.lkPack(m, scale,
   width, height) lays it out (or says it does not fit); window.lkDraw(m, layout) draws it. */
(function () {
  var LEAVES = "text,rect,path,image,line,polyline,polygon,circle,ellipse,use";

  function measure(svg) {
    var vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
    if (!vb || !vb.width || !r.width) return null;
    var k = vb.width / r.width, atoms = [], font = Infinity, at = 0;
    svg.querySelectorAll("text").forEach(function (t) { t.lkText = at++; });
    svg.querySelectorAll(LEAVES).forEach(function (e) {
      if (e.closest("defs,clipPath,mask,pattern,marker,symbol,title")) return;
      var b = e.getBoundingClientRect();
      if (b.width < 0.01 && b.height < 0.01) return;
      var a = {x0: vb.x + (b.left - r.left) * k, x1: vb.x + (b.right - r.left) * k,
               y0: vb.y + (b.top - r.top) * k, y1: vb.y + (b.bottom - r.top) * k,
               text: e.tagName === "text" && !!e.textContent.trim(), el: e, i: e.lkText};
      if (a.text) font = Math.min(font, parseFloat(getComputedStyle(e).fontSize));
      else if (a.x1 - a.x0 >= 0.95 * vb.width && a.y1 - a.y0 >= 0.95 * vb.height) return;  /* background */
      atoms.push(a);
    });
    if (!atoms.length || font === Infinity) return null;
    return {svg: svg, atoms: atoms, font: font, box: bound(atoms)};
  }

  function bound(as) {
    var b = {x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity};
    as.forEach(function (a) {
      b.x0 = Math.min(b.x0, a.x0); b.y0 = Math.min(b.y0, a.y0);
      b.x1 = Math.max(b.x1, a.x1); b.y1 = Math.max(b.y1, a.y1);
    });
    return b;
  }

  function inside(as, p) {
    return as.filter(function (a) { return a.x1 > p.x0 + 0.01 && a.x0 < p.x1 - 0.01 && a.y1 > p.y0 + 0.01 && a.y0 < p.y1 - 0.01; });
  }

  /* free intervals along an axis ("x" or "y") of region p not covered by the spans of as */
  function gaps(as, p, ax, textOnly) {
    var lo = ax === "x" ? "x0" : "y0", hi = ax === "x" ? "x1" : "y1";
    var s = as.filter(function (a) { return !textOnly || a.text; })
      .map(function (a) { return [Math.max(a[lo], p[lo]), Math.min(a[hi], p[hi])]; })
      .sort(function (u, v) { return u[0] - v[0]; });
    var out = [], at = p[lo];
    s.forEach(function (iv) { if (iv[0] > at) out.push([at, iv[0]]); at = Math.max(at, iv[1]); });
    if (at < p[hi]) out.push([at, p[hi]]);
    return out;
  }

  function crop(as, p) {
    var b = bound(inside(as, p));
    return {x0: Math.max(p.x0, b.x0), y0: Math.max(p.y0, b.y0), x1: Math.min(p.x1, b.x1), y1: Math.min(p.y1, b.y1)};
  }

  /* blocks: the drawing split at its widest empty gaps (inner gaps at least g wide); an image
     (the colours of many cells at once) does not bridge a gap, the cells' lines and labels do */
  function blocks(m, p, g, out) {
    var lines = m.lines || (m.lines = m.atoms.filter(function (a) { return a.el.tagName !== "image"; }));
    var as = inside(lines, p), best = null;
    ["x", "y"].forEach(function (ax) {
      var lo = ax === "x" ? "x0" : "y0", hi = ax === "x" ? "x1" : "y1";
      gaps(as, p, ax, false).forEach(function (iv) {
        if (iv[0] <= p[lo] + 0.01 || iv[1] >= p[hi] - 0.01) return;
        /* rows before columns: a gap between rows counts double */
        var w = (iv[1] - iv[0]) * (ax === "y" ? 2 : 1);
        if (iv[1] - iv[0] >= g && (!best || w > best.w)) best = {ax: ax, at: (iv[0] + iv[1]) / 2, w: w};
      });
    });
    if (!best) { out.push(p); return out; }
    var a = {x0: p.x0, y0: p.y0, x1: p.x1, y1: p.y1}, b = {x0: p.x0, y0: p.y0, x1: p.x1, y1: p.y1};
    if (best.ax === "x") { a.x1 = best.at; b.x0 = best.at; } else { a.y1 = best.at; b.y0 = best.at; }
    blocks(m, crop(lines, a), g, out);
    blocks(m, crop(lines, b), g, out);
    return out;
  }

  /* region p cut along ax into parts at most len long (after the first, next long), between
     texts; null when a text is longer */
  function cut(m, p, ax, len, next) {
    var lo = ax === "x" ? "x0" : "y0", hi = ax === "x" ? "x1" : "y1";
    if (p[hi] - p[lo] <= len + 0.01) return [p];
    var as = inside(m.atoms, p), free = gaps(as, p, ax, true), parts = [], at = p[lo];
    while (p[hi] - at > (parts.length ? next || len : len) + 0.01) {
      if (parts.length > 200) return null;
      var c = null, end = at + (parts.length ? next || len : len);
      free.forEach(function (iv) {
        var a = Math.max(iv[0], at + 0.01), b = Math.min(iv[1], end), mid = (iv[0] + iv[1]) / 2;
        if (a > b) return;
        var here = mid >= a && mid <= b ? mid : b;
        if (c === null || here > c) c = here;
      });
      if (c === null) return null;
      var q = {x0: p.x0, y0: p.y0, x1: p.x1, y1: p.y1};
      q[lo] = at; q[hi] = c;
      parts.push(q);
      at = c;
    }
    var r = {x0: p.x0, y0: p.y0, x1: p.x1, y1: p.y1};
    r[lo] = at;
    parts.push(r);
    return parts;
  }

  /* the parts of m for pieces at most W x H (drawing units): its blocks, a heading joined to the
     block under it where both fit one piece, a block too large cut down columns then across rows,
     and a lone line of text too long for a piece set as wrapping text; null if a part cannot fit */
  function parts(m, W, H, cw, ch) {
    var all = m.box, out = [], font = m.font, lifted = [], hide = [];
    if (all.x1 - all.x0 <= W && all.y1 - all.y0 <= H) return [{p: all}];
    /* a line of text longer than a piece is set as wrapping text, above or below the pieces */
    var long = m.atoms.filter(function (a) { return a.text && a.x1 - a.x0 > W; });
    if (long.length) {
      var rest = m.atoms.filter(function (a) { return long.indexOf(a) < 0; });
      if (!rest.length) return null;
      m = {atoms: rest, font: font, box: bound(rest), svg: m.svg};
      long.forEach(function (a) {
        hide.push(a.i);
        lifted.push({p: {x0: a.x0, y0: a.y0, x1: a.x1, y1: a.y1}, text: a.el});
      });
    }
    var solid = m.atoms.filter(function (a) { return a.el.tagName !== "image"; });
    var bs = blocks(m, crop(solid, m.box), Math.max(4, 0.6 * font), []);
    /* a heading (a line of text alone) goes with the block right under it: in one piece when both
       fit one, else just before it, in a row of its own */
    var heads = bs.filter(function (p) {
      var as = inside(solid, p);
      return as.length && as.every(function (a) { return a.text && p.y1 - p.y0 <= 1.6 * (a.y1 - a.y0); });
    });
    heads.forEach(function (h) {
      var under = null;
      bs.forEach(function (n) {
        var d = n.y0 - h.y1, nw = n.x1 - n.x0;
        if (heads.indexOf(n) < 0 && d >= -0.01 && d <= 2 * (h.y1 - h.y0) && h.x0 >= n.x0 - 0.1 * nw && h.x0 <= n.x1 &&
            (!under || d < under.y0 - h.y1)) under = n;
      });
      if (!under) return;
      bs.splice(bs.indexOf(h), 1);
      var u = {x0: Math.min(h.x0, under.x0), y0: h.y0, x1: Math.max(h.x1, under.x1), y1: under.y1};
      if (u.x1 - u.x0 <= W) bs[bs.indexOf(under)] = u;
      else bs.splice(bs.indexOf(under), 0, {x0: h.x0, y0: h.y0, x1: h.x1, y1: h.y1, own: true});
    });
    /* each lifted line goes before the first block that starts below it */
    lifted.sort(function (a, b) { return a.p.y0 - b.p.y0; }).forEach(function (q) {
      for (var k = 0; k < bs.length && !(bs[k].y0 !== undefined && bs[k].y0 >= q.p.y1 - 0.01); k++);
      bs.splice(k, 0, q);
    });
    for (var i = 0; i < bs.length; i++) {
      if (bs[i].text) { bs[i].own = true; out.push(bs[i]); continue; }
      var p = bs[i];
      if (p.own) { out.push({p: p, own: true, hide: hide}); continue; }
      /* the labels left of a grid (its row numbers) go again before each later part of it */
      var as = inside(m.atoms, p), tall = as.filter(function (a) { return !a.text && a.y1 - a.y0 >= 0.5 * (p.y1 - p.y0); });
      var gx = tall.length ? Math.min.apply(null, tall.map(function (a) { return a.x0; })) : p.x0;
      var gy = tall.length ? Math.min.apply(null, tall.map(function (a) { return a.y0; })) : p.y0;
      var hw = as.some(function (a) { return a.text && a.x1 <= gx + 0.01; }) && gx - p.x0 <= 0.25 * cw ? gx - p.x0 : 0;
      var cols = p.x1 - p.x0 <= W ? [p] : cut(m, p, "x", cw, cw - hw);
      if (cols && cols.length > 1) {
        /* parts of about equal width, where the texts allow */
        var even = Math.min(cw, 1.08 * (p.x1 - p.x0 + (cols.length - 1) * hw) / cols.length);
        var again = cut(m, p, "x", even, even - hw);
        if (again && again.length === cols.length) cols = again;
      }
      if (!cols) return null;
      for (var j = 0; j < cols.length; j++) {
        var c = crop(m.atoms, cols[j]), rows = c.y1 - c.y0 <= H ? [c] : cut(m, c, "y", ch);
        if (!rows) return null;
        rows.forEach(function (r) {
          var q = {p: crop(m.atoms, r), hide: hide};
          if (j > 0 && hw > 0 && q.p.y1 > gy) q.pre = {x0: p.x0, x1: gx, y0: Math.max(gy, q.p.y0), y1: q.p.y1};
          out.push(q);
        });
      }
    }
    return out;
  }

  /* shelves of width w: each part on the last shelf (in order) or the first with room (first) */
  function shelve(ps, s, w, first) {
    var gap = 4, shelves = [], out = [];
    ps.forEach(function (q) {
      var pw = (q.p.x1 - q.p.x0 + (q.pre ? q.pre.x1 - q.pre.x0 : 0)) * s, ph = (q.p.y1 - q.p.y0) * s;
      if (q.text) {
        pw = Math.min(w, pw);
        ph = Math.ceil(1.1 * (q.p.x1 - q.p.x0) * s / w) * 1.3 * q.font * s + 2;
      }
      var on = null, last = shelves[shelves.length - 1];
      for (var k = first ? 0 : Math.max(0, shelves.length - 1); k < shelves.length && !q.own; k++)
        if (shelves[k].x + pw <= w + 0.01 && !shelves[k].own) { on = shelves[k]; break; }
      if (last && last.own && !q.own) on = null;
      if (!on) { on = {x: 0, h: 0, items: [], own: !!q.own}; shelves.push(on); }
      on.items.push({q: q, x: on.x, w: pw, h: ph});
      on.x += pw + gap;
      on.h = Math.max(on.h, ph);
    });
    var y = 0, wide = 0;
    shelves.forEach(function (sh) {
      sh.items.forEach(function (it) {
        out.push({p: it.q.p, pre: it.q.pre, text: it.q.text, font: it.q.font, hide: it.q.hide, x: it.x, y: y, w: it.w, h: it.h});
        wide = Math.max(wide, it.x + it.w);
      });
      y += sh.h + gap;
    });
    return {pieces: out, width: wide, height: Math.max(0, y - gap), scale: s};
  }

  /* the pieces of m at scale s in a box w x h (px; h Infinity: no limit), or null; whole: one
     piece only; loose: pieces may leave reading order to fill the rows */
  function pack(m, s, w, h, whole, loose) {
    var W = w / s, H = h / s;
    /* pieces as wide and as tall as the box allows, or a half, a third, a quarter of that */
    for (var a = 1; a <= (whole ? 1 : 4); a++) for (var b = 1; b <= (whole || h === Infinity ? 1 : 3); b++) {
      var ps = parts(m, W, H, W / a, H / b);
      if (!ps || (whole && ps.length > 1)) continue;
      ps.forEach(function (q) { if (q.text) q.font = parseFloat(getComputedStyle(q.text).fontSize); });
      var lay = shelve(ps, s, w, !!loose);
      if (lay.width <= w + 0.5 && lay.height <= h + 0.5) return lay;
    }
    return null;
  }

  var made = 0;
  /* an <svg> showing region p of the drawing at (x, y), w x h px: a copy of it, its ids made
     unique, the texts set apart (hide) left out, no Tab stops, hidden from screen readers */
  function copy(m, p, hide, x, y, w, h) {
    var c = m.svg.cloneNode(true), tag = "-p" + (++made);
    c.querySelectorAll("[id]").forEach(function (e) { e.id = e.id + tag; });
    c.querySelectorAll("[clip-path],[mask],[style],[href]").forEach(function (e) {
      ["clip-path", "mask", "style", "href"].forEach(function (n) {
        var v = e.getAttribute(n);
        if (v && v.indexOf("#") >= 0) e.setAttribute(n, v.replace(/url\(#([^)]+)\)/g, "url(#$1" + tag + ")").replace(/^#(.+)$/, "#$1" + tag));
      });
    });
    c.querySelectorAll("[tabindex]").forEach(function (e) { e.removeAttribute("tabindex"); });
    ["tabindex", "role", "aria-label", "aria-labelledby"].forEach(function (n) { c.removeAttribute(n); });
    c.setAttribute("aria-hidden", "true");
    if (hide) {
      var ts = c.querySelectorAll("text");
      hide.forEach(function (i) { if (ts[i]) ts[i].style.display = "none"; });
    }
    c.setAttribute("viewBox", [p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0].join(" "));
    c.setAttribute("width", w);
    c.setAttribute("height", h);
    c.style.cssText = "position:absolute;left:" + x + "px;top:" + y + "px;width:" + w + "px;height:" + h +
      "px;min-width:0;max-width:none;overflow:hidden";
    return c;
  }

  /* the laid-out pieces as one element: each an <svg> clone showing its part of the drawing */
  function draw(m, lay) {
    var div = document.createElement("div");
    div.className = "lk-pieces";
    div.setAttribute("role", "img");
    div.setAttribute("aria-label", m.svg.getAttribute("aria-label") ||
                     (m.svg.querySelector("title") || {}).textContent || "figure");
    div.style.position = "relative";
    div.style.width = lay.width + "px";
    div.style.height = lay.height + "px";
    lay.pieces.forEach(function (q) {
      if (q.text) {
        var t = document.createElement("div"), cs = getComputedStyle(q.text);
        t.className = "lk-piece-text";
        t.textContent = q.text.textContent;
        t.style.cssText = "position:absolute;left:" + q.x + "px;top:" + q.y + "px;width:" + q.w + "px;height:" +
          q.h + "px;font-size:" + q.font * lay.scale + "px;line-height:1.3;overflow-wrap:anywhere;text-align:center;" +
          "font-family:" + cs.fontFamily + ";color:" + cs.fill;
        div.appendChild(t);
        return;
      }
      var at = q.x;
      if (q.pre) {
        var pw = (q.pre.x1 - q.pre.x0) * lay.scale;
        div.appendChild(copy(m, q.pre, q.hide, at, q.y + (q.pre.y0 - q.p.y0) * lay.scale, pw, (q.pre.y1 - q.pre.y0) * lay.scale));
        at += pw;
      }
      div.appendChild(copy(m, q.p, q.hide, at, q.y, q.x + q.w - at, q.h));
    });
    return div;
  }

  window.lkPieces = measure;
  window.lkPack = pack;
  window.lkDraw = draw;
})();

/* A figure wider than the screen. On a narrow screen a drawing (figure.lkfs) is cut into pieces
   that fit the column, set one under another. Any other says so above it ("wider than the screen:
   scroll sideways, or open it full screen") and opens full screen in a dialog: the drawing, cut
   into pieces where it must be, at the largest size that shows it whole (turned a quarter when that
   is larger) with its smallest text at least MIN_PX; a tap on a piece of an interactive figure
   selects that cell. Only where no such size exists does the view scroll. Closing the dialog
   leaves the figure in the page. */
(function () {
  var BOXES = "figure.lkf .lkf-box, figure.lkfs > .lkfs-box";
  var NARROW = "(max-width: 720px)";
  var MIN_PX = 9.1;

  function bar(fig, box) {
    var b = fig.querySelector(":scope > .lk-figbar");
    if (!b) {
      b = document.createElement("div");
      b.className = "lk-figbar lkf-ctl";   /* a control of the figure, beside its drawing */
      var note = document.createElement("span");
      note.textContent = "Wider than the screen: scroll sideways \u2192, or";
      var open = document.createElement("button");
      open.type = "button";
      open.className = "lk-full-open";
      open.textContent = "open full screen";
      open.addEventListener("click", function () { full(fig, box); });
      b.appendChild(note);
      b.appendChild(open);
      fig.insertBefore(b, fig.firstChild);
    }
    return b;
  }

  /* a drawing on a narrow screen: its pieces at the size the page gives it, down the column */
  function cutInPage(box) {
    var svg = box.querySelector(":scope > svg"), old = box.querySelector(":scope > .lk-pieces");
    var narrow = window.matchMedia(NARROW).matches;
    if (!svg) return;
    if (old) {
      if (narrow && box.lkCut === box.clientWidth) return;
      old.remove();
      svg.style.display = "";
    }
    box.lkCut = null;
    if (!narrow || box.scrollWidth <= box.clientWidth + 1) return;
    var m = window.lkPieces(svg);
    if (!m) return;
    var lay = window.lkPack(m, svg.getBoundingClientRect().width / svg.viewBox.baseVal.width, box.clientWidth, Infinity);
    if (!lay) return;
    svg.style.display = "none";
    box.appendChild(window.lkDraw(m, lay));
    box.lkCut = box.clientWidth;
  }

  function check() {
    document.querySelectorAll(BOXES).forEach(function (box) {
      if (box.closest("dialog")) return;
      var fig = box.closest("figure");
      if (fig.classList.contains("lkfs")) cutInPage(box);
      var wide = box.scrollWidth > box.clientWidth + 1;
      fig.classList.toggle("lk-wide", wide);
      if (wide) bar(fig, box);
    });
  }

  /* the largest layout of m in a w x h box, upright or turned, with text of at least MIN_PX */
  function best(m, w, h) {
    var low = MIN_PX / m.font, bw = m.box.x1 - m.box.x0, bh = m.box.y1 - m.box.y0;
    var up = Math.min(w / bw, h / bh, 2.5 * low), side = Math.min(h / bw, w / bh, 2.5 * low);
    if (Math.max(up, side) >= low) {
      /* whole, as one piece */
      return up >= side ? {lay: window.lkPack(m, up, w, h, true), turned: false}
                        : {lay: window.lkPack(m, side, h, w, true), turned: true};
    }
    /* in pieces: the largest size at which they fit, upright or turned, in reading order if
       they can be */
    for (var loose = 0; loose < 2; loose++)
      for (var s = 2.5 * low; s > low * 0.999; s = s > low * 1.0001 ? Math.max(low, s * 0.97) : 0) {
        var a = window.lkPack(m, s, w, h, false, loose);
        if (a) return {lay: a, turned: false};
        var b = window.lkPack(m, s, h, w, false, loose);
        if (b) return {lay: b, turned: true};
      }
    return null;
  }

  function full(fig, box) {
    var dlg = document.createElement("dialog");
    dlg.className = "lk-full";
    var head = document.createElement("div");
    head.className = "lk-full-head";
    var title = document.createElement("span");
    var cap = fig.querySelector("figcaption");
    title.textContent = cap ? cap.textContent : (box.getAttribute("aria-label") || "figure");
    var close = document.createElement("button");
    close.type = "button";
    close.className = "lk-full-close";
    close.textContent = "close";
    close.addEventListener("click", function () { dlg.close(); });
    head.appendChild(title);
    head.appendChild(close);
    var pane = document.createElement("div");
    pane.className = "lk-full-pane";
    var turn = document.createElement("div");
    turn.className = "lk-full-turn";
    pane.appendChild(turn);
    dlg.appendChild(head);
    dlg.appendChild(pane);
    var svg = box.querySelector("svg"), m = window.lkPieces(svg);
    document.body.appendChild(dlg);
    dlg.showModal();
    var fit = m && best(m, pane.clientWidth - 1, pane.clientHeight - 1), undo, watch = null;
    if (fit) {
      /* the pieces, inside an element of the figure's class so that its style applies */
      var wrap = document.createElement("div");
      wrap.className = fig.classList.contains("lkf") ? "lkf" : "lkfs";
      wrap.style.cssText = "margin:0;width:" + fit.lay.width + "px;height:" + fit.lay.height + "px";
      var draw = function () {
        while (wrap.firstChild) wrap.removeChild(wrap.firstChild);
        wrap.appendChild(window.lkDraw(m, fit.lay));
      };
      draw();
      turn.appendChild(wrap);
      if (fit.turned) {
        turn.classList.add("lk-turned");
        turn.style.width = fit.lay.height + "px";
        turn.style.height = fit.lay.width + "px";
        wrap.style.transform = "rotate(90deg) translateY(-100%)";
      } else {
        turn.style.width = fit.lay.width + "px";
      }
      turn.style.margin = "0 auto";
      if (fig.classList.contains("lkf")) {
        /* a tap selects the cell in the figure; the pieces follow what it marks */
        pane.addEventListener("click", function (e) {
          var t = e.target.closest ? e.target.closest("[data-k]") : null;
          var o = t && svg.querySelector('[data-k="' + t.getAttribute("data-k") + '"]');
          if (o) o.dispatchEvent(new MouseEvent("click", {bubbles: true}));
        });
        var queued = false;
        watch = new MutationObserver(function () {
          if (queued) return;
          queued = true;
          window.requestAnimationFrame(function () { queued = false; draw(); });
        });
        watch.observe(svg, {attributes: true, subtree: true, attributeFilter: ["class"]});
      }
      undo = function () {};
    } else {
      /* no layout shows it whole: the drawing itself, at its legible size, scrolls both ways */
      var w = box.scrollWidth, spot = document.createComment("lk-full");
      var width = box.style.width, maxw = box.style.maxWidth;
      box.parentNode.insertBefore(spot, box);
      box.style.width = w + "px";
      box.style.maxWidth = "none";
      turn.appendChild(box);
      undo = function () {
        box.style.width = width;
        box.style.maxWidth = maxw;
        spot.parentNode.insertBefore(box, spot);
        spot.remove();
      };
    }
    dlg.addEventListener("close", function () {
      if (watch) watch.disconnect();
      undo();
      dlg.remove();
      check();
    });
    dlg.addEventListener("click", function (e) { if (e.target === dlg) dlg.close(); });
  }

  function start() {
    check();
    window.addEventListener("resize", check);
    /* interactive figures draw themselves after load */
    setTimeout(check, 300);
    setTimeout(check, 1500);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
