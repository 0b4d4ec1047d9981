// The issue page, enhanced: every form works without this file; with it, the shortcuts
// r (reply), n (note) and a (assign to me), files upload as soon as they are chosen,
// the selects of the controls apply on change, and labels show their colours.
(function () {
  "use strict";

  document.documentElement.classList.add("js");

  function typingIn(target) {
    if (!(target instanceof Element)) return false;
    if (target.isContentEditable) return true;
    return Boolean(target.closest("input, textarea, select, [contenteditable]"));
  }

  function composer() {
    return document.getElementById("composer");
  }

  // r and n: the composer, ready for a reply or a note (the matching button is the one
  // Ctrl+Enter presses and the one the page highlights).
  function compose(mode) {
    var form = composer();
    if (!form) return false;
    form.dataset.mode = mode;
    var box = document.getElementById("message");
    box.focus();
    box.scrollIntoView({ block: "center" });
    return true;
  }

  function assignToMe() {
    var button = document.getElementById("assign-to-me");
    if (!button) return false;
    button.click();
    return true;
  }

  var SHORTCUTS = {
    r: function () { return compose("reply"); },
    n: function () { return compose("note"); },
    a: assignToMe,
  };

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typingIn(event.target)) return;
    var action = SHORTCUTS[event.key];
    if (action && action()) event.preventDefault();
  });

  // Ctrl+Enter in the message sends it the way r or n chose (a reply by default).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    if (!event.target || event.target.id !== "message") return;
    var form = composer();
    var mode = form.dataset.mode === "note" ? "note" : "reply";
    var button = form.querySelector('.send button[value="' + mode + '"]');
    event.preventDefault();
    form.requestSubmit(button);
  });

  // Edit, on a held reply: back to the text, nothing sent.
  document.addEventListener("click", function (event) {
    var edit = event.target instanceof Element && event.target.closest("[data-edit]");
    if (!edit) return;
    event.preventDefault();
    var held = document.getElementById("held");
    if (held) held.hidden = true;
    compose(composer().dataset.mode || "reply");
  });

  // A select of the controls applies as soon as it changes (htmx, when loaded, turns the
  // submit into a request that swaps the controls alone).
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (!(select instanceof HTMLSelectElement) || !select.hasAttribute("data-autosubmit")) return;
    select.form.requestSubmit();
  });

  function addUpload(list, file) {
    var item = document.createElement("li");
    item.className = "upload";
    var hidden = document.createElement("input");
    hidden.type = "hidden";
    hidden.name = "attachment_ids";
    hidden.value = file.id;
    var link = document.createElement("a");
    link.href = "/inbox/attachments/" + encodeURIComponent(file.id);
    link.setAttribute("download", "");
    link.textContent = file.fileName;
    var remove = document.createElement("button");
    remove.type = "button";
    remove.className = "link-button";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", "Remove " + file.fileName);
    remove.addEventListener("click", function () { item.remove(); });
    item.append(hidden, link, " ", remove);
    list.append(item);
    list.hidden = false;
  }

  // A chosen file uploads at once; its id joins the composer, to go with the next send.
  async function upload(input) {
    var form = composer();
    var status = document.getElementById("upload-status");
    var list = document.getElementById("uploads");
    var files = Array.from(input.files || []);
    for (var i = 0; i < files.length; i++) {
      var body = new FormData();
      body.append("csrf_token", form.querySelector('input[name="csrf_token"]').value);
      body.append("file", files[i]);
      status.textContent = "Uploading " + files[i].name + "…";
      try {
        var answer = await fetch(input.dataset.uploadUrl, {
          method: "POST",
          body: body,
          headers: { Accept: "application/json" },
          credentials: "same-origin",
        });
        var found = await answer.json().catch(function () { return null; });
        if (!answer.ok) {
          var why = found && found.error ? found.error.message : "the server said " + answer.status;
          status.textContent = files[i].name + " was not uploaded: " + why;
          continue;
        }
        addUpload(list, found);
        status.textContent = files[i].name + " is attached.";
      } catch (error) {
        status.textContent = files[i].name + " was not uploaded: the connection failed.";
      }
    }
    input.value = "";
  }

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input instanceof HTMLInputElement && input.type === "file" && input.dataset.uploadUrl) {
      upload(input);
    }
  });

  // Colours are data, not inline styles (the page's CSP allows no style attribute).
  function paintLabels(root) {
    root.querySelectorAll("[data-color]").forEach(function (dot) {
      if (/^#[0-9a-fA-F]{6}$/.test(dot.dataset.color)) dot.style.background = dot.dataset.color;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    paintLabels(document);
    var form = composer();
    if (form && form.classList.contains("is-held")) {
      document.getElementById("held").scrollIntoView({ block: "center" });
    }
    // After a send, the page opens at the new message: show it, not the top.
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    paintLabels(event.target);
    // The control's own notice says what just changed: the page's older one goes.
    var older = document.querySelector("main > .notice");
    if (older && event.target.id === "issue-controls") older.remove();
  });
})();
