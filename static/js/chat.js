// Streams Whizi's reply into the chat page as it is written.
// Without this file the composer is a plain form: it posts and the page comes back
// with the whole reply. With it, the same form posts to its data-stream-url and reads
// server-sent events: start, token (many), then done or error.
(function () {
  "use strict";
  if (!window.fetch || !window.TextDecoder || !window.ReadableStream) return;

  let busy = false;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function bubble(role, text) {
    const log = document.getElementById("chat-log");
    const item = el("li", "msg msg-" + role);
    item.appendChild(el("div", "msg-body", text));
    log.appendChild(item);
    item.scrollIntoView({ block: "end" });
    return item;
  }

  function fromHTML(html) {
    const template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  }

  function showError(error, content) {
    const box = document.getElementById("chat-error");
    box.querySelector(".chat-error-title").textContent = error.title || "";
    box.querySelector(".chat-error-message").textContent = error.message || "";
    const retry = box.querySelector("form.chat-retry");
    const canRetry = Boolean(content) && error.retryable !== false;
    retry.hidden = !canRetry;
    if (canRetry) {
      retry.querySelector("[name=content]").value = content;
      const composer = document.getElementById("composer");
      for (const name of ["conversation", "model"]) {
        const source = composer.querySelector("[name=" + name + "]");
        let target = retry.querySelector("[name=" + name + "]");
        if (source && !target) {
          target = el("input");
          target.type = "hidden";
          target.name = name;
          retry.appendChild(target);
        }
        if (source) target.value = source.value;
      }
    }
    box.hidden = false;
  }

  function hideError() {
    document.getElementById("chat-error").hidden = true;
  }

  function joinConversation(start) {
    // The first message started a conversation: later messages go to it.
    const composer = document.getElementById("composer");
    let field = composer.querySelector("[name=conversation]");
    if (!field) {
      field = el("input");
      field.type = "hidden";
      field.name = "conversation";
      composer.prepend(field);
    }
    field.value = start.conversation;
    const project = composer.querySelector("select[name=project]");
    if (project) project.closest("label").remove();
    if (window.location.pathname !== start.url) window.history.replaceState({}, "", start.url);
    const heading = document.querySelector(".chat-head h1");
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
    hideError();
    const textarea = composer.querySelector("textarea[name=content]");
    const userBubble = isRetry ? null : bubble("user", content);
    const reply = bubble("assistant", "");
    reply.classList.add("streaming");
    const body = reply.querySelector(".msg-body");
    if (!isRetry) textarea.value = "";
    const undo = function () {
      reply.remove();
      if (userBubble) userBubble.remove();
      if (!isRetry) textarea.value = content;
    };
    try {
      const response = await fetch(form.dataset.streamUrl, {
        method: "POST",
        body: data,
        credentials: "same-origin",
        headers: { "X-CSRFToken": data.get("csrfmiddlewaretoken"), Accept: "text/event-stream" },
      });
      if (!response.ok) {
        const answer = await response.json().catch(function () { return null; });
        undo();
        showError((answer && answer.error) || { title: response.statusText, message: "" }, null);
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
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
            body.textContent += message.data;
          } else if (message.event === "done") {
            const saved = fromHTML(message.data.html);
            reply.replaceWith(saved);
            const list = document.getElementById("conversation-list");
            if (list && message.data.list_html) list.replaceWith(fromHTML(message.data.list_html));
            if (window.htmx) {
              window.htmx.process(saved);
              const newList = document.getElementById("conversation-list");
              if (newList) window.htmx.process(newList);
            }
          } else if (message.event === "error") {
            // The user's message is saved; only the reply is missing.
            reply.remove();
            showError(message.data, content);
          }
        }
      }
    } catch (err) {
      reply.remove();
      showError({ title: "", message: String(err) }, content);
    } finally {
      busy = false;
    }
  }

  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.streamUrl) return;
    event.preventDefault();
    send(form);
  });

  document.addEventListener("keydown", function (event) {
    // Enter sends, Shift+Enter starts a new line.
    const target = event.target;
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    if (!(target instanceof HTMLTextAreaElement) || target.id !== "composer-content") return;
    event.preventDefault();
    target.form.requestSubmit();
  });
})();
