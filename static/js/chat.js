// The chat page: streams Whizi's reply into the page as it is written, keeps the newest
// reply in view, and opens the side column as a drawer on phones.
// Without this file the composer is a plain form: it posts and the page comes back
// with the whole reply. With it, the same form posts to its data-stream-url and reads
// server-sent events: start, token (many), then done or error.
(function () {
  "use strict";

  let busy = false;
  let current = null; // the AbortController of the reply being streamed
  let pinned = true; // the reader is at the bottom of the conversation: keep them there
  let scroller = null;

  // --- keeping the newest reply in view

  function nearBottom(box) {
    return box.scrollHeight - box.scrollTop - box.clientHeight < 48;
  }

  function keepInView() {
    if (scroller && pinned) scroller.scrollTop = scroller.scrollHeight;
  }

  function init() {
    const box = document.getElementById("chat-scroll");
    if (!box || box === scroller) return;
    scroller = box;
    const anchor = window.location.hash.startsWith("#m-") && document.getElementById(window.location.hash.slice(1));
    if (anchor) {
      anchor.scrollIntoView({ block: "end" });
      pinned = nearBottom(box);
    } else {
      pinned = true;
      keepInView();
    }
    box.addEventListener("scroll", function () { pinned = nearBottom(box); }, { passive: true });
    if (window.ResizeObserver) {
      // A reply growing, a memory mark arriving or the window (or composer) changing size.
      const watcher = new ResizeObserver(keepInView);
      watcher.observe(box);
      watcher.observe(document.getElementById("chat-log"));
    }
  }

  // --- the side column as a drawer (phones)

  function setMenu(open) {
    const side = document.getElementById("chat-side");
    const button = document.querySelector("[data-menu-open]");
    const main = document.querySelector(".chat-main");
    if (!side || !button) return;
    side.classList.toggle("open", open);
    button.setAttribute("aria-expanded", open ? "true" : "false");
    if (main) main.inert = open;
    if (open) {
      const first = side.querySelector("a, button");
      if (first) first.focus();
    } else {
      button.focus();
    }
  }

  function menuIsOpen() {
    const side = document.getElementById("chat-side");
    return Boolean(side && side.classList.contains("open"));
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-menu-open]")) {
      setMenu(true);
      return;
    }
    if (event.target.closest("[data-menu-close]") && menuIsOpen()) {
      event.preventDefault();
      setMenu(false);
    }
  });

  // --- pieces the page renders for the script (template#chat-pieces)

  function piece(selector) {
    return document.getElementById("chat-pieces").content.querySelector(selector).cloneNode(true);
  }

  function words(name) {
    return piece('[data-text="' + name + '"]').textContent.trim();
  }

  function fromHTML(html) {
    const template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  }

  function failedItem(error, content) {
    const item = piece("#chat-error");
    if (error.title) item.querySelector(".chat-error-title").textContent = error.title;
    if (error.message) item.querySelector(".chat-error-message").textContent = error.message;
    item.querySelector(".msg-failed-text").setAttribute("role", "alert"); // said as it happens
    const retry = item.querySelector("form.chat-retry");
    if (error.retryable === false) {
      retry.remove();
      return item;
    }
    const composer = document.getElementById("composer");
    retry.querySelector("[name=content]").value = content;
    for (const name of ["conversation", "model"]) {
      const source = composer.querySelector("[name=" + name + "]");
      if (source) retry.querySelector("[name=" + name + "]").value = source.value;
    }
    return item;
  }

  function announce(text) {
    const region = document.getElementById("chat-announce");
    if (!region) return;
    region.textContent = "";
    window.setTimeout(function () { region.textContent = text; }, 50);
  }

  // An error about a message that was not saved: said above the composer.
  function showSendError(error, status) {
    const box = document.getElementById("chat-send-error");
    const texts = document.body.dataset;
    box.querySelector(".alert-title").textContent = (error && error.title) || texts.errorTitle || "";
    box.querySelector(".alert-message").textContent = (error && error.message) || texts.errorMessage || "";
    const reload = box.querySelector(".alert-action");
    reload.hidden = status !== 403; // a stale page: a fresh one has a fresh token
    reload.href = window.location.href;
    box.hidden = false;
  }

  function hideSendError() {
    document.getElementById("chat-send-error").hidden = true;
  }

  function setStreaming(on) {
    const composer = document.getElementById("composer");
    composer.querySelector(".composer-send").hidden = on;
    composer.querySelector("[data-chat-stop]").hidden = !on;
    composer.setAttribute("aria-busy", on ? "true" : "false");
  }

  function joinConversation(start) {
    // The first message started a conversation: later messages go to it.
    const composer = document.getElementById("composer");
    let field = composer.querySelector("[name=conversation]");
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = "conversation";
      composer.prepend(field);
    }
    field.value = start.conversation;
    const project = composer.querySelector("select[name=project]");
    if (project) project.closest("label").remove();
    if (window.location.pathname !== start.url) window.history.replaceState({}, "", start.url);
    const heading = document.getElementById("chat-title");
    if (heading && start.title) {
      heading.textContent = start.title;
      document.title = start.title + " · Whizi";
    }
  }

  function parseEvent(raw) {
    let event = "message";
    const data = [];
    for (const line of raw.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    return { event: event, data: data.length ? JSON.parse(data.join("\n")) : null };
  }

  async function send(form) {
    const composer = document.getElementById("composer");
    const isRetry = form !== composer;
    const data = new FormData(form);
    const content = String(data.get("content") || "").trim();
    if (!content || busy) return;
    busy = true;
    hideSendError();
    const log = document.getElementById("chat-log");
    const textarea = composer.querySelector("textarea[name=content]");
    const oldFailure = document.getElementById("chat-error");
    if (oldFailure) oldFailure.remove();
    const empty = document.querySelector(".chat-empty");
    if (empty) empty.remove();
    let userBubble = null;
    if (!isRetry) {
      userBubble = piece(".msg-user");
      userBubble.querySelector(".msg-body").textContent = content;
      log.appendChild(userBubble);
      textarea.value = "";
    }
    // A visible waiting state until the first words arrive.
    const reply = piece(".msg-waiting");
    log.appendChild(reply);
    pinned = true;
    keepInView();
    const controller = new AbortController();
    current = controller;
    setStreaming(true);
    let finished = false;
    try {
      const response = await fetch(form.dataset.streamUrl, {
        method: "POST",
        body: data,
        credentials: "same-origin",
        signal: controller.signal,
        headers: { "X-CSRFToken": data.get("csrfmiddlewaretoken"), Accept: "text/event-stream" },
      });
      if (!response.ok) {
        const answer = await response.json().catch(function () { return null; });
        // Nothing was saved: the message goes back into the composer (or stays failed).
        reply.remove();
        if (userBubble) userBubble.remove();
        if (isRetry) log.appendChild(failedItem({}, content));
        else textarea.value = content;
        showSendError(answer && answer.error, response.status);
        finished = true;
        return;
      }
      const body = reply.querySelector(".msg-body");
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      let started = false;
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const message = parseEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (message.event === "start") {
            joinConversation(message.data);
          } else if (message.event === "token") {
            if (!started) {
              started = true;
              reply.classList.remove("msg-waiting");
              reply.classList.add("streaming");
              body.textContent = "";
            }
            body.textContent += message.data;
            keepInView();
          } else if (message.event === "done") {
            finished = true;
            const saved = fromHTML(message.data.html);
            reply.replaceWith(saved);
            const list = document.getElementById("conversation-list");
            if (list && message.data.list_html) list.replaceWith(fromHTML(message.data.list_html));
            if (window.htmx) {
              window.htmx.process(saved);
              const newList = document.getElementById("conversation-list");
              if (newList) window.htmx.process(newList);
            }
            keepInView();
            announce(words("announce-reply") + " " + saved.querySelector(".msg-body").textContent);
          } else if (message.event === "error") {
            // The user's message is saved; only the reply is missing.
            finished = true;
            reply.replaceWith(failedItem(message.data, content));
            keepInView();
          }
        }
      }
    } catch (err) {
      if (!controller.signal.aborted) console.warn("chat stream failed", err);
    } finally {
      if (!finished) {
        // Stopped by the user, or the connection dropped before the reply was saved.
        const stopped = controller.signal.aborted;
        reply.replaceWith(failedItem(stopped
          ? { title: words("stopped-title"), message: words("stopped-message") }
          : { message: words("lost-message") }, content));
      }
      busy = false;
      current = null;
      setStreaming(false);
      keepInView();
    }
  }

  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.streamUrl) return;
    if (!window.fetch || !window.TextDecoder || !window.ReadableStream || !window.AbortController) return;
    event.preventDefault();
    send(form);
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-chat-stop]") && current) current.abort();
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && menuIsOpen()) {
      setMenu(false);
      return;
    }
    // Enter sends, Shift+Enter starts a new line.
    const target = event.target;
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    if (!(target instanceof HTMLTextAreaElement) || target.id !== "composer-content") return;
    event.preventDefault();
    target.form.requestSubmit();
  });

  document.addEventListener("DOMContentLoaded", init);
  // hx-boost swaps the whole page when another chat is opened from the side column.
  document.addEventListener("htmx:afterSettle", init);
  if (document.readyState !== "loading") init();
})();
