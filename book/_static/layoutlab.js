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

/* A figure wider than the screen says so above it ("wider than the screen: scroll sideways, or
   open it full screen") and opens full screen in a dialog: the drawing keeps the size at which its
   smallest text is legible, turned a quarter when that lets it fit the screen whole, and scrolls
   both ways when even that does not. Closing the dialog puts it back in the page. */
(function () {
  var BOXES = "figure.lkf .lkf-box, figure.lkfs > .lkfs-box";

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

  function check() {
    document.querySelectorAll(BOXES).forEach(function (box) {
      if (box.closest("dialog")) return;
      var fig = box.closest("figure");
      var wide = box.scrollWidth > box.clientWidth + 1;
      fig.classList.toggle("lk-wide", wide);
      if (wide) bar(fig, box);
    });
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
    var w = box.scrollWidth, h = box.scrollHeight;
    var spot = document.createComment("lk-full");
    box.parentNode.insertBefore(spot, box);
    var width = box.style.width, maxw = box.style.maxWidth;
    box.style.width = w + "px";
    box.style.maxWidth = "none";
    turn.appendChild(box);
    pane.appendChild(turn);
    dlg.appendChild(head);
    dlg.appendChild(pane);
    document.body.appendChild(dlg);
    dlg.showModal();
    var vw = pane.clientWidth, vh = pane.clientHeight;
    if (w > vw && w <= vh && h <= vw) {
      /* a quarter turn makes it fit whole: turned, and grown to fill the screen */
      var grow = Math.min(vw / h, vh / w, 3);
      turn.classList.add("lk-turned");
      turn.style.width = h * grow + "px";
      turn.style.height = w * grow + "px";
      box.style.transform = "rotate(90deg) scale(" + grow + ") translateY(-" + h + "px)";
    }
    dlg.addEventListener("close", function () {
      box.style.transform = "";
      box.style.width = width;
      box.style.maxWidth = maxw;
      spot.parentNode.insertBefore(box, spot);
      spot.remove();
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
