// The chat page: streams Whizi's reply into the page as it is written (its Markdown
// rendered by markdown-it and sanitised by DOMPurify on the way, the saved reply rendered
// by the server), keeps the newest reply in view, copies, regenerates and edits, and
// opens the side column as a drawer on phones.
// Without this file the composer is a plain form: it posts and the page comes back
// with the whole reply. With it, the same form posts to its data-stream-url and reads
// server-sent events: start, token (many; each one's data is a chunk of text, one token
// or several), then done or error.
(function () {
  "use strict";

  let busy = false;
  let current = null; // the reply being streamed: {controller, started, stopAsked}
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
    updateComposer();
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
      const first = side.querySelector("a, button, input");
      if (first) first.focus();
    } else {
      button.focus();
    }
  }

  function menuIsOpen() {
    const side = document.getElementById("chat-side");
    return Boolean(side && side.classList.contains("open"));
  }

  // --- pieces the page renders for the script (template#chat-pieces)

  function piece(selector) {
    return document.getElementById("chat-pieces").content.querySelector(selector).cloneNode(true);
  }

  function words(name) {
    const found = document.getElementById("chat-pieces").content.querySelector('[data-text="' + name + '"]');
    return found ? found.textContent.trim() : "";
  }

  function fromHTML(html) {
    const template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  }

  // --- Markdown while streaming: the same rules as chat/markdown.py (no raw HTML, no
  // style, no picture, links apart from the page); the server's HTML replaces it once saved.

  const MARKDOWN_TAGS = ["p", "br", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li",
                         "h1", "h2", "h3", "h4", "h5", "h6", "hr", "a", "table", "thead", "tbody", "tr", "th", "td"];
  let markdown = null;

  function renderer() {
    if (markdown === null) {
      markdown = false;
      if (window.markdownit && window.DOMPurify && window.DOMPurify.isSupported) {
        markdown = window.markdownit("default", { html: false, linkify: false, typographer: false, breaks: true });
        window.DOMPurify.addHook("afterSanitizeAttributes", function (node) {
          if (node.tagName === "A") {
            node.setAttribute("target", "_blank");
            node.setAttribute("rel", "noopener nofollow");
          }
        });
      }
    }
    return markdown;
  }

  function renderInto(body, text) {
    const md = renderer();
    if (!md) {
      body.textContent = text; // the plain text is safe too, only less pretty
      return;
    }
    const clean = window.DOMPurify.sanitize(md.render(text), {
      ALLOWED_TAGS: MARKDOWN_TAGS, ALLOWED_ATTR: ["href", "title", "start", "class"],
      ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i, RETURN_DOM_FRAGMENT: true,
    });
    body.replaceChildren(clean);
  }

  // --- the composer: honest limits, growing with the text

  function composerParts() {
    const composer = document.getElementById("composer");
    if (!composer) return null;
    return {
      form: composer,
      text: composer.querySelector("textarea[name=content]"),
      send: composer.querySelector(".composer-send"),
      count: document.getElementById("composer-count"),
      max: Number(composer.dataset.max) || 20000,
    };
  }

  function grow(textarea) {
    // Chromium grows it with CSS (field-sizing); elsewhere, here, up to its max-height.
    if (window.CSS && CSS.supports && CSS.supports("field-sizing", "content")) return;
    textarea.style.height = "auto";
    textarea.style.height = textarea.scrollHeight + 2 + "px";
  }

  function updateComposer(hint) {
    const parts = composerParts();
    if (!parts) return;
    const length = parts.text.value.length;
    const empty = !parts.text.value.trim();
    const over = length > parts.max;
    parts.send.disabled = busy || empty || over;
    parts.count.classList.toggle("over", over);
    if (over) {
      parts.count.textContent = length.toLocaleString() + " / " + parts.max.toLocaleString() + " · " + words("too-long");
    } else if (length >= parts.max * 0.9) {
      parts.count.textContent = length.toLocaleString() + " / " + parts.max.toLocaleString();
    } else {
      parts.count.textContent = hint && empty ? words("empty") : "";
    }
    grow(parts.text);
  }

  // --- failures

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

  // An error about a message that was not saved (or a reply that was not replaced): said
  // above the composer.
  function showSendError(error, status) {
    const box = document.getElementById("chat-send-error");
    const texts = document.body.dataset;
    box.querySelector(".alert-title").textContent = (error && error.title) || texts.errorTitle || "";
    box.querySelector(".alert-message").textContent = (error && error.message) || texts.errorMessage || "";
    const reload = box.querySelector(".alert-action");
    reload.hidden = status !== 403 && status !== 409; // a stale page: a fresh one is right
    reload.href = window.location.href;
    box.hidden = false;
  }

  function hideSendError() {
    document.getElementById("chat-send-error").hidden = true;
  }

  function setStreaming(on) {
    const composer = document.getElementById("composer");
    document.querySelector(".chat-stop-bar").hidden = !on;
    composer.setAttribute("aria-busy", on ? "true" : "false");
    for (const button of document.querySelectorAll(".msg-regenerate button, .msg-edit-form button")) {
      button.disabled = on;
    }
    updateComposer();
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

  // Only the end of a conversation can be edited or regenerated: a new exchange takes
  // those actions from the messages before it (the saved ones come back with their own).
  function dropEndActions() {
    for (const control of document.querySelectorAll("#chat-log .msg-regenerate, #chat-log .msg-edit")) {
      control.remove();
    }
  }

  async function send(form) {
    const composer = document.getElementById("composer");
    const isComposer = form === composer;
    const data = new FormData(form);
    const regenerate = data.get("regenerate");
    const editing = data.get("edit");
    const content = String(data.get("content") || "").trim();
    if (busy) return; // a second click (a double click) while the first send runs does nothing
    if (!regenerate && !content) {
      if (isComposer) updateComposer(true);
      return;
    }
    if (isComposer && content.length > Number(composer.dataset.max)) {
      updateComposer();
      return;
    }
    busy = true;
    hideSendError();
    const log = document.getElementById("chat-log");
    const textarea = composer.querySelector("textarea[name=content]");
    const oldFailure = document.getElementById("chat-error");
    if (oldFailure) oldFailure.remove();
    const empty = document.querySelector(".chat-empty");
    if (empty) empty.remove();
    // What this send takes off the page until it is saved, to put back if it is not.
    const removed = [];
    let userBubble = null;
    if (regenerate) {
      const old = document.getElementById("m-" + regenerate);
      if (old) {
        removed.push({ node: old, before: old.nextSibling });
        old.remove();
      }
    } else if (editing) {
      const old = document.getElementById("m-" + editing);
      let next = old;
      while (next) {
        const after = next.nextElementSibling;
        removed.push({ node: next, before: next.nextSibling });
        next.remove();
        next = after;
      }
    }
    dropEndActions();
    if (isComposer || editing) {
      userBubble = piece(".msg-user");
      userBubble.querySelector(".msg-body").textContent = content;
      log.appendChild(userBubble);
    }
    if (isComposer) {
      textarea.value = "";
      updateComposer();
    }
    // A visible waiting state until the first words arrive.
    const reply = piece(".msg-waiting");
    log.appendChild(reply);
    pinned = true;
    keepInView();
    const controller = new AbortController();
    const state = { controller: controller, started: false, stopAsked: false, timer: null,
                    regenerate: Boolean(regenerate) };
    current = state;
    setStreaming(true);
    let finished = false;

    function restore() {
      for (const item of removed.reverse()) log.insertBefore(item.node, item.before && item.before.parentNode === log ? item.before : null);
    }

    function notSaved(error, status) {
      // Nothing was saved: the message goes back into the composer (or the page as it was).
      reply.remove();
      if (userBubble) userBubble.remove();
      restore();
      if (isComposer) {
        textarea.value = content;
        updateComposer();
        textarea.focus();
      }
      showSendError(error, status);
    }

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
        finished = true;
        if (!isComposer && !editing && !regenerate) {
          reply.replaceWith(failedItem({}, content)); // "Try again" refused: it stays failed
          showSendError(answer && answer.error, response.status);
        } else {
          notSaved(answer && answer.error, response.status);
        }
        return;
      }
      const body = reply.querySelector(".msg-body");
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      let text = "";
      let drawing = false;
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const message = parseEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (message.event === "start") {
            state.started = true;
            joinConversation(message.data);
            // Stop was asked before the message was known to be saved: now it is, stop.
            if (state.stopAsked) controller.abort();
          } else if (message.event === "token") {
            if (!text) {
              reply.classList.remove("msg-waiting");
              reply.classList.add("streaming");
            }
            text += message.data;
            if (!drawing) {
              drawing = true; // at most one render a frame, however many chunks arrive
              window.requestAnimationFrame(function () {
                drawing = false;
                if (!finished) renderInto(body, text);
                keepInView();
              });
            }
          } else if (message.event === "done") {
            finished = true;
            const saved = fromHTML(message.data.html);
            reply.replaceWith(saved);
            if (userBubble && message.data.user_html) {
              const savedUser = fromHTML(message.data.user_html);
              userBubble.replaceWith(savedUser);
              userBubble = savedUser;
            } else if (message.data.user_html) {
              // Regenerated: the user's message gets its own actions back.
              const before = document.getElementById("m-" + fromHTML(message.data.user_html).dataset.message);
              if (before) before.replaceWith(fromHTML(message.data.user_html));
            }
            const list = document.getElementById("conversation-list");
            if (list && message.data.list_html) list.replaceWith(fromHTML(message.data.list_html));
            // A new chat's first reply: rename and delete are there from now on.
            const options = document.getElementById("chat-options");
            if (options && !options.children.length && message.data.options_html) {
              options.replaceWith(fromHTML(message.data.options_html));
            }
            if (window.htmx) {
              window.htmx.process(saved);
              const newList = document.getElementById("conversation-list");
              if (newList) window.htmx.process(newList);
            }
            keepInView();
            announce(words("announce-reply") + " " + saved.querySelector(".msg-body").textContent);
          } else if (message.event === "error") {
            // The user's message is saved; only the reply is missing (or, for a
            // regenerate, the earlier reply stays).
            finished = true;
            if (regenerate) {
              reply.remove();
              restore();
              showSendError({ title: message.data.title,
                              message: message.data.message + " " + words("regenerate-kept") }, message.data.status);
            } else {
              reply.replaceWith(failedItem(message.data, content));
            }
            keepInView();
          }
        }
      }
    } catch (err) {
      if (!controller.signal.aborted) console.warn("chat stream failed", err);
    } finally {
      if (!finished) {
        const stopped = controller.signal.aborted;
        if (regenerate) {
          // The earlier reply was never removed on the server.
          reply.remove();
          restore();
          if (!stopped) showSendError({ message: words("lost-message") }, 0);
        } else if (!state.started) {
          // Whizi never said it had the message: it goes back into the composer.
          notSaved({ title: stopped ? words("stopped-title") : "",
                     message: words(stopped ? "stopped-early" : "lost-early") }, 0);
        } else {
          // Stopped by the user, or the connection dropped, after the message was saved.
          reply.replaceWith(failedItem(stopped
            ? { title: words("stopped-title"), message: words("stopped-message") }
            : { message: words("lost-message") }, content));
        }
      }
      if (state.timer) window.clearTimeout(state.timer);
      busy = false;
      current = null;
      setStreaming(false);
      keepInView();
    }
  }

  function stop() {
    if (!current) return;
    if (current.started || current.regenerate) {
      // A regenerate replaces nothing until its reply is whole: stopping is safe at once.
      current.controller.abort();
      return;
    }
    // The message may not be saved yet: stop once Whizi says it is (the start event),
    // so a new chat never vanishes; give up waiting after a few seconds.
    current.stopAsked = true;
    const state = current;
    state.timer = window.setTimeout(function () { state.controller.abort(); }, 5000);
  }

  // --- copying

  function copyText(text, button) {
    function done() {
      const label = button.textContent;
      button.textContent = words("copied");
      button.classList.add("copied");
      window.setTimeout(function () {
        button.textContent = label;
        button.classList.remove("copied");
      }, 1500);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {});
      return;
    }
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    area.select();
    try {
      if (document.execCommand("copy")) done();
    } finally {
      area.remove();
    }
  }

  // --- events

  document.addEventListener("click", function (event) {
    const target = event.target;
    if (target.closest("[data-menu-open]")) {
      setMenu(true);
      return;
    }
    if (target.closest("[data-menu-close]") && menuIsOpen()) {
      event.preventDefault();
      setMenu(false);
      return;
    }
    if (target.closest("[data-chat-stop]")) {
      stop();
      return;
    }
    const copyMessage = target.closest("[data-copy-message]");
    if (copyMessage) {
      const source = copyMessage.closest(".msg").querySelector("template.msg-source");
      copyText(source.content.textContent, copyMessage);
      return;
    }
    const copyCode = target.closest("[data-copy-code]");
    if (copyCode) {
      const code = copyCode.closest(".code-block").querySelector("pre code");
      copyText(code.textContent, copyCode);
    }
  });

  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.streamUrl) return;
    if (!window.fetch || !window.TextDecoder || !window.ReadableStream || !window.AbortController) return;
    event.preventDefault();
    send(form);
  });

  document.addEventListener("input", function (event) {
    if (event.target.id === "composer-content") updateComposer();
  });

  document.addEventListener("toggle", function (event) {
    // An opened edit box starts with the cursor at the end of the message.
    const details = event.target;
    if (!(details instanceof HTMLDetailsElement) || !details.open || !details.classList.contains("msg-edit")) return;
    const area = details.querySelector("textarea");
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
  }, true);

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
    if (busy) return;
    if (!target.value.trim()) {
      updateComposer(true);
      return;
    }
    target.form.requestSubmit();
  });

  document.addEventListener("DOMContentLoaded", init);
  // hx-boost swaps the whole page when another chat is opened from the side column.
  document.addEventListener("htmx:afterSettle", init);
  if (document.readyState !== "loading") init();
})();
