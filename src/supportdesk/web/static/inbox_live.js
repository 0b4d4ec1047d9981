// Live updates and collision for the inbox pages (docs/inbox-live.md).
//
// Live: htmx's SSE extension holds the page's stream (`#live-events`, inbox/_live.html,
// resumed by Last-Event-ID when it reconnects) and hands it each message (`sse-swap`);
// here each one is turned into page events instead of a swap:
//   "inbox:changed" on the body for every event (the queue's rows refresh on theirs), and
//   "inbox:issue-changed" for an event of the issue the page shows (data-issue-id),
// which the issue page's thread listens to (hx-trigger "... from:body delay:300ms").
//
// Collision: an issue page's `[data-presence-url]` beats every 2 s with "viewing", or
// "replying" while its composer holds text, and lists what the server answers: the other
// members there. Closing the page says "left".
(function () {
  "use strict";

  var BEAT_MS = 2000;

  function concerns(event, issueId) {
    var data = event && event.data;
    if (!data) return false;
    return (
      (data.issue && data.issue.id === issueId) ||
      (data.mergedInto && data.mergedInto.id === issueId)
    );
  }

  function relay(message) {
    var kind = message.type;
    var event = null;
    try {
      event = JSON.parse(message.data);
    } catch (error) {
      event = null;
    }
    var detail = { type: kind, event: event, sequence: message.lastEventId };
    var everything = kind === "reset" || kind === "member.removed" || kind.indexOf("label.") === 0;
    var options = { detail: detail, bubbles: true };
    document.body.dispatchEvent(new CustomEvent("inbox:changed", options));
    var page = document.querySelector("[data-issue-id]");
    if (!page || echo(event, page)) return;
    if (everything || concerns(event, page.getAttribute("data-issue-id"))) {
      document.body.dispatchEvent(new CustomEvent("inbox:issue-changed", options));
    }
  }

  // A change this page just made (a control or the composer, through htmx) comes back on
  // the stream: the page shows it already, and refreshing would only wipe the notice
  // ("Status changed.") its own answer brought.
  var ECHO_MS = 3000;
  var ownRequestAt = 0;
  document.addEventListener("htmx:beforeRequest", function (htmxEvent) {
    var elt = htmxEvent.detail && htmxEvent.detail.elt;
    if (elt && elt.closest && elt.closest("#issue-controls, #composer")) ownRequestAt = Date.now();
  });
  function echo(event, page) {
    var actor = event && event.actor;
    return (
      !!actor &&
      actor.type === "member" &&
      actor.id === page.getAttribute("data-member-id") &&
      Date.now() - ownRequestAt < ECHO_MS
    );
  }

  // The queue's rows refresh on what they show, once for a burst of events: the queue
  // page's rows listen to `refresh-queue` on the body (inbox/_queue_rows.html).
  var QUEUE_EVENTS = /^(issue\.|label\.|message\.created$|member\.removed$|reset$)/;
  var QUEUE_DELAY_MS = 300;
  var queueRefresh = null;
  document.addEventListener("inbox:changed", function (event) {
    if (!document.getElementById("queue-rows") || !QUEUE_EVENTS.test(event.detail.type)) return;
    window.clearTimeout(queueRefresh);
    queueRefresh = window.setTimeout(function () {
      htmx.trigger(document.body, "refresh-queue");
    }, QUEUE_DELAY_MS);
  });

  document.addEventListener("htmx:sseBeforeMessage", function (htmxEvent) {
    var marker = htmxEvent.target;
    if (!marker || marker.id !== "live-events") return;
    htmxEvent.preventDefault(); // nothing to swap: the pieces refresh themselves
    var sequence = htmxEvent.detail.lastEventId;
    if (sequence) {
      // The browser resumes by Last-Event-ID by itself; after a refusal (a 502 from a
      // proxy, say), htmx opens the stream anew from this address: from here, not from
      // where the page was rendered.
      var address = marker.getAttribute("sse-connect").split("?")[0];
      marker.setAttribute("sse-connect", address + "?after=" + encodeURIComponent(sequence));
    }
    relay(htmxEvent.detail);
  });

  function setLiveState(state) {
    var marker = document.getElementById("live-events");
    if (marker) marker.setAttribute("data-live-state", state);
  }
  document.addEventListener("htmx:sseOpen", function () {
    setLiveState("open");
  });
  document.addEventListener("htmx:sseError", function () {
    setLiveState("reconnecting");
  });

  // --- Presence ------------------------------------------------------------------------

  function startPresence(box) {
    var url = box.getAttribute("data-presence-url");
    var csrf = box.getAttribute("data-csrf");
    var list = box.querySelector("[data-presence-list]") || box;
    var shown = list.innerHTML;
    var sentState = null;
    var inFlight = false;

    function composer() {
      return (
        document.querySelector("[data-composer-text]") ||
        document.querySelector('textarea[name="body"]')
      );
    }
    function state() {
      var text = composer();
      return text && text.value.trim() !== "" ? "replying" : "viewing";
    }
    function form(value) {
      var data = new FormData();
      data.append("csrf_token", csrf);
      data.append("state", value);
      return data;
    }
    function beat() {
      if (inFlight) return;
      inFlight = true;
      sentState = state();
      fetch(url, { method: "POST", body: form(sentState), credentials: "same-origin" })
        .then(function (answer) {
          return answer.ok ? answer.text() : null;
        })
        .then(function (html) {
          // Replaced only when it changed, so that screen readers hear changes only.
          if (html !== null && html !== shown) {
            shown = html;
            list.innerHTML = html;
          }
        })
        .catch(function () {})
        .then(function () {
          inFlight = false;
        });
    }

    beat();
    window.setInterval(beat, BEAT_MS);
    // Typing starts (or clearing ends) a reply: told at once, not at the next beat.
    document.addEventListener("input", function (event) {
      if (event.target === composer() && state() !== sentState) beat();
    });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") beat();
    });
    window.addEventListener("pagehide", function () {
      if (navigator.sendBeacon) navigator.sendBeacon(url, form("left"));
    });
  }

  function start() {
    var box = document.querySelector("[data-presence-url]");
    if (box) startPresence(box);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
