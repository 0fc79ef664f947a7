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
