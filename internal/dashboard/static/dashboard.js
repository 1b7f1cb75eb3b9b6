// Copyright 2026 The siteops Authors. Licensed under the Apache License, Version 2.0.
//
// dashboard.js keeps a page of the siteops dashboard current. The server pushes the page's new content as a
// Server-Sent Event ("view") each time a SiteSync it shows changes; the script swaps in only the parts that
// differ (each part carries a data-key), so 1,000 cells cost one replacement when one site moves. It also keeps
// the relative times ("3m ago", "in 4m") of <time data-rel> elements current between updates.
(function () {
  "use strict";
  var view = document.getElementById("view");
  var live = document.getElementById("live");
  if (!view || !window.EventSource) {
    return;
  }

  function setLive(state) {
    live.dataset.live = state;
    live.textContent = state;
  }

  function keyed(root) {
    return Array.prototype.slice.call(root.querySelectorAll("[data-key]"));
  }

  // patch replaces the keyed parts of view whose HTML changed, or all of it when the parts are not the same.
  function patch(html) {
    var next = document.createElement("template");
    next.innerHTML = html;
    var now = keyed(view), fresh = keyed(next.content);
    var same = now.length === fresh.length && now.every(function (el, i) {
      return el.dataset.key === fresh[i].dataset.key;
    });
    if (!same) {
      view.replaceChildren(next.content);
    } else {
      fresh.forEach(function (el, i) {
        if (!now[i].isEqualNode(el)) {
          now[i].replaceWith(el);
        }
      });
    }
    refreshTimes();
  }

  function human(ms) {
    var s = Math.round(Math.abs(ms) / 1000);
    if (s < 60) { return s + "s"; }
    if (s < 3600) { return Math.floor(s / 60) + "m" + (s < 600 && s % 60 ? (s % 60) + "s" : ""); }
    if (s < 172800) {
      return Math.floor(s / 3600) + "h" + (s < 36000 && s % 3600 >= 60 ? Math.floor(s % 3600 / 60) + "m" : "");
    }
    return Math.floor(s / 86400) + "d";
  }

  function refreshTimes() {
    var now = Date.now();
    view.querySelectorAll("time[data-rel]").forEach(function (t) {
      var d = Date.parse(t.getAttribute("datetime")) - now;
      var text = t.dataset.rel === "ago" ? human(d) + " ago" : (d > 0 ? "in " + human(d) : "now");
      if (t.textContent !== text) {
        t.textContent = text;
      }
    });
  }

  var source = new EventSource("/events" + location.pathname + location.search);
  source.addEventListener("view", function (e) { patch(e.data); });
  source.onopen = function () { setLive("live"); };
  source.onerror = function () { setLive("reconnecting"); };
  window.setInterval(refreshTimes, 10000);
})();
