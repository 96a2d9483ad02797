// Small progressive enhancements; every page works without this file.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // An error answer to an htmx request is shown where that request can show it: the slot
  // named by the closest data-error-slot around the element that asked, else the page's
  // alert. JSON or a whole page is never put on screen as it came: only its words.
  function alertElement(title, message) {
    const box = document.createElement("div");
    box.className = "alert";
    box.setAttribute("data-error", "");
    const strong = document.createElement("strong");
    strong.className = "alert-title";
    strong.textContent = title;
    const text = document.createElement("span");
    text.className = "alert-message";
    text.textContent = message;
    box.append(strong, " ", text);
    return box;
  }

  function genericAlert() {
    const texts = document.body.dataset;
    return alertElement(texts.errorTitle || "", texts.errorMessage || "");
  }

  function wordsOf(xhr) {
    const type = xhr.getResponseHeader("Content-Type") || "";
    if (type.indexOf("json") >= 0) {
      try {
        const error = JSON.parse(xhr.responseText).error;
        if (error && (error.title || error.message)) return alertElement(error.title || "", error.message || "");
      } catch (ignored) { /* not JSON after all */ }
      return genericAlert();
    }
    if (/<html[\s>]/i.test(xhr.responseText) || !xhr.responseText.trim()) return genericAlert();
    return null; // one of our fragments: swap it as it is
  }

  function requester(detail) {
    // The element that asked (detail.elt is the element the event fires on: the target).
    return (detail.requestConfig && detail.requestConfig.elt) || detail.elt;
  }

  function slotFor(elt) {
    const holder = elt && elt.closest ? elt.closest("[data-error-slot]") : null;
    const name = holder ? holder.getAttribute("data-error-slot") : "#page-alert";
    if (name === "none") return null;
    return document.querySelector(name) || document.getElementById("page-alert");
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    const detail = event.detail;
    if (detail.xhr.status < 400 || detail.boosted) return;
    const slot = slotFor(requester(detail));
    if (!slot) {
      detail.shouldSwap = false;
      return;
    }
    const replacement = wordsOf(detail.xhr);
    if (replacement) detail.serverResponse = replacement.outerHTML;
    if (!detail.xhr.getResponseHeader("HX-Retarget")) {
      detail.target = slot;
      detail.swapOverride = "innerHTML";
    }
    detail.shouldSwap = true;
  });

  // The request never got an answer (offline, server down).
  document.addEventListener("htmx:sendError", function (event) {
    const slot = slotFor(requester(event.detail));
    if (!slot) return;
    slot.replaceChildren(alertElement(document.body.dataset.errorTitle || "",
                                      document.body.dataset.offlineMessage || ""));
  });

  // A new request from the same place clears its old error.
  document.addEventListener("htmx:beforeRequest", function (event) {
    const slot = slotFor(requester(event.detail));
    if (slot && slot.querySelector("[data-error]")) slot.replaceChildren();
  });

  // A notice (Django's messages) goes away when dismissed.
  document.addEventListener("click", function (event) {
    const close = event.target.closest("[data-flash-close]");
    if (close) close.closest(".flash").remove();
  });

  // Dialogs (`[data-dialog-open][aria-controls=<dialog id>]`): modal, Escape and the
  // backdrop close them, and focus goes back to what opened them. Without this file the
  // opener is a link or a submit to a page that shows the same dialog open.
  function openerOf(dialog) {
    return document.querySelector('[data-dialog-open][aria-controls="' + dialog.id + '"]');
  }

  document.addEventListener("click", function (event) {
    const opener = event.target.closest("[data-dialog-open]");
    if (opener) {
      const dialog = document.getElementById(opener.getAttribute("aria-controls"));
      if (!dialog || typeof dialog.showModal !== "function") return; // submit to the page instead
      event.preventDefault();
      dialog.showModal(); // modal: focus moves in (to [autofocus]) and Escape closes it
      opener.setAttribute("aria-expanded", "true");
      const first = dialog.querySelector("[autofocus]");
      if (first && document.activeElement !== first) first.focus();
      return;
    }
    const closer = event.target.closest("[data-dialog-close]");
    if (closer) {
      const open = closer.closest("dialog");
      if (open && open.open) {
        event.preventDefault();
        open.close();
      }
      return;
    }
    // A click on the backdrop (outside the dialog's box) closes it, like Cancel.
    const target = event.target;
    if (target instanceof HTMLDialogElement && target.open) {
      const box = target.getBoundingClientRect();
      const inside = event.clientX >= box.left && event.clientX <= box.right &&
                     event.clientY >= box.top && event.clientY <= box.bottom;
      if (!inside) target.close();
    }
  });

  // "close" does not bubble, so listen in the capture phase. It fires for Cancel, Escape,
  // the backdrop and after a failed clear alike: put focus back where the user was.
  document.addEventListener("close", function (event) {
    const dialog = event.target;
    if (!(dialog instanceof HTMLDialogElement)) return;
    const opener = openerOf(dialog);
    if (opener) {
      opener.setAttribute("aria-expanded", "false");
      opener.focus();
    }
  }, true);
})();
