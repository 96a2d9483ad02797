// The memory block's focus handling after htmx swaps. Without this file every control still
// works: "Clear memory" submits to a confirmation page, and Cancel back to the list.
(function () {
  "use strict";

  // Opening, closing and focus of the dialog: static/js/whizi.js (every page's dialogs).

  document.addEventListener("htmx:afterRequest", function (event) {
    // The element that asked; when a swap removed it, htmx fires this on an ancestor.
    var form = (event.detail.requestConfig && event.detail.requestConfig.elt) || event.target;
    // A clear that failed leaves the block in place (only an alert slot changes): close
    // the dialog so the message and the unchanged list are in view.
    var dialog = form.closest && form.closest("dialog");
    if (dialog && dialog.open && document.body.contains(dialog)) dialog.close();
    // A clear that went through is said out loud (and shown) once.
    if (form.dataset && form.dataset.doneMessage && event.detail.successful) {
      var status = document.getElementById("memory-status");
      if (status) status.textContent = form.dataset.doneMessage;
    }
  });

  // After htmx replaces the memory block, keep keyboard and screen-reader users in it:
  // on the row when there is one (opened or closed), else on the block's heading.
  document.addEventListener("htmx:load", function (event) {
    var block = event.target;
    if (!block || block.id !== "memory") return;
    var target = block.querySelector(".memory-row") || block.querySelector("#memory-title");
    if (target) target.focus();
  });
})();
