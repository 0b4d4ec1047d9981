/* The inbox's keyboard and the queue's selection. No inline scripts (script-src 'self').
 *
 * Keys live in one small registry, so that each page adds its own:
 *   supportdesk.keys.register("r", "Reply", () => ...);
 * A key never fires while a text field, a select or an editable element has the focus,
 * nor with Ctrl, Alt or Meta held (those belong to the browser). Escape leaves a text field.
 * The list the "?" overlay shows is server-rendered (templates/inbox/_shortcuts.html).
 */
(function () {
  "use strict";

  const bindings = new Map();

  function register(key, description, run) {
    bindings.set(key, { description: description, run: run });
  }

  function typingIn(element) {
    if (!element || element === document.body) return false;
    if (element.isContentEditable) return true;
    const tag = element.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT") return true;
    if (tag !== "INPUT") return false;
    const kind = (element.getAttribute("type") || "text").toLowerCase();
    return !["checkbox", "radio", "button", "submit", "reset"].includes(kind);
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey) return;
    if (event.key === "Escape" && typingIn(document.activeElement)) {
      document.activeElement.blur();
      return;
    }
    if (typingIn(event.target)) return;
    if (document.querySelector("dialog[open]") && event.key !== "?") return;
    const binding = bindings.get(event.key);
    if (!binding) return;
    if (binding.run(event) !== false) event.preventDefault();
  });

  // --- The overlay of shortcuts ------------------------------------------------------

  function shortcuts() {
    return document.getElementById("shortcuts");
  }

  function toggleShortcuts() {
    const dialog = shortcuts();
    if (!dialog) return false;
    if (dialog.open) dialog.close();
    else dialog.showModal();
  }

  register("?", "Show the keyboard shortcuts", toggleShortcuts);
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-open-shortcuts]")) toggleShortcuts();
  });

  // --- The queue ---------------------------------------------------------------------

  function rowLinks() {
    return Array.from(document.querySelectorAll("#queue-rows a.row-link"));
  }

  function move(step) {
    const links = rowLinks();
    if (!links.length) return false;
    const row = document.activeElement && document.activeElement.closest("#queue-rows tr");
    const at = row ? links.indexOf(row.querySelector("a.row-link")) : -1;
    const next = at === -1 ? (step > 0 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, at + step));
    links[next].focus();
    links[next].scrollIntoView({ block: "nearest" });
  }

  function focusSearch() {
    const search = document.getElementById("queue-search");
    if (!search) return false;
    search.focus();
    search.select();
  }

  function toggleSelected() {
    const row = document.activeElement && document.activeElement.closest("#queue-rows tr");
    const box = row && row.querySelector('input[name="ids"]');
    if (!box) return false;
    box.checked = !box.checked;
    countSelected();
  }

  if (document.getElementById("queue-rows")) {
    register("j", "Next issue", function () { return move(1); });
    register("k", "Previous issue", function () { return move(-1); });
    register("/", "Search", focusSearch);
    register("x", "Select the issue", toggleSelected);
  }

  // Enter on a focused row link opens it: the browser does that for links already.

  // --- Selection for the bulk bar ----------------------------------------------------

  function boxes() {
    return Array.from(document.querySelectorAll('#queue-rows input[name="ids"]'));
  }

  function countSelected() {
    const label = document.getElementById("bulk-count");
    const all = document.getElementById("select-all");
    const checked = boxes().filter(function (box) { return box.checked; }).length;
    if (label) label.textContent = checked === 1 ? "1 selected" : checked + " selected";
    if (all) {
      all.checked = checked > 0 && checked === boxes().length;
      all.indeterminate = checked > 0 && checked < boxes().length;
    }
  }

  document.addEventListener("change", function (event) {
    if (event.target.id === "select-all") {
      boxes().forEach(function (box) { box.checked = event.target.checked; });
    }
    if (event.target.id === "select-all" || event.target.name === "ids") countSelected();
  });

  // A refresh of the rows (a live update) keeps what was selected and where the focus was.
  let kept = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (!event.detail.target || event.detail.target.id !== "queue-rows") return;
    const focused = document.activeElement && document.activeElement.closest("#queue-rows tr");
    kept = {
      checked: boxes().filter(function (box) { return box.checked; }).map(function (box) { return box.value; }),
      focused: focused ? focused.dataset.ticket : null,
    };
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (!kept || !event.detail.target || event.detail.target.id !== "queue-rows") return;
    boxes().forEach(function (box) { box.checked = kept.checked.includes(box.value); });
    if (kept.focused) {
      const row = document.querySelector('#queue-rows tr[data-ticket="' + kept.focused + '"] a.row-link');
      if (row) row.focus();
    }
    kept = null;
    countSelected();
  });

  window.supportdesk = Object.assign(window.supportdesk || {}, {
    keys: { register: register, bindings: bindings },
  });
  countSelected();
})();
