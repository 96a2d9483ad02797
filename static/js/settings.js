// The memory block's dialog and focus handling. Without this file every control still
// works: "Clear memory" submits to a confirmation page, and Cancel back to the list.
(function () {
  "use strict";

  function openerOf(dialog) {
    return document.querySelector('[data-dialog-open][aria-controls="' + dialog.id + '"]');
  }

  document.addEventListener("click", function (event) {
    var opener = event.target.closest("[data-dialog-open]");
    if (opener) {
      var dialog = document.getElementById(opener.getAttribute("aria-controls"));
      if (!dialog || typeof dialog.showModal !== "function") return; // submit to the page instead
      event.preventDefault();
      dialog.showModal(); // modal: focus moves in (to [autofocus]) and Escape closes it
      opener.setAttribute("aria-expanded", "true");
      var first = dialog.querySelector("[autofocus]");
      if (first && document.activeElement !== first) first.focus();
      return;
    }
    var closer = event.target.closest("[data-dialog-close]");
    if (closer) {
      var open = closer.closest("dialog");
      if (open && open.open) {
        event.preventDefault();
        open.close();
      }
      return;
    }
    // A click on the backdrop (outside the dialog's box) closes it, like Cancel.
    var target = event.target;
    if (target instanceof HTMLDialogElement && target.open) {
      var box = target.getBoundingClientRect();
      var inside = event.clientX >= box.left && event.clientX <= box.right &&
                   event.clientY >= box.top && event.clientY <= box.bottom;
      if (!inside) target.close();
    }
  });

  // "close" does not bubble, so listen in the capture phase. It fires for Cancel, Escape,
  // the backdrop and after a failed clear alike: put focus back where the user was.
  document.addEventListener("close", function (event) {
    var dialog = event.target;
    if (!(dialog instanceof HTMLDialogElement)) return;
    var opener = openerOf(dialog);
    if (opener) {
      opener.setAttribute("aria-expanded", "false");
      opener.focus();
    }
  }, true);

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
