// The viewer's only script: follow a run in progress without a reload, and open the folded
// draft a diagnostic link points into. It inserts nothing but HTML the server rendered (and
// escaped) for the same page.
"use strict";

(function () {
  const POLL_MS = 1000;

  function follow() {
    const live = document.getElementById("live");
    if (!live || !live.dataset.stampUrl) {
      return;
    }
    async function tick() {
      try {
        const answer = await fetch(live.dataset.stampUrl, { cache: "no-store" });
        if (answer.ok) {
          const stamp = await answer.text();
          if (stamp !== live.dataset.stamp) {
            const url = new URL(window.location.href);
            url.searchParams.set("partial", "1");
            url.hash = "";
            const page = await fetch(url, { cache: "no-store" });
            if (page.ok) {
              live.innerHTML = await page.text();
              live.dataset.stamp = page.headers.get("X-Stamp") || stamp;
            }
          }
        }
      } catch (err) {
        // the viewer was stopped or the network hiccupped: try again on the next tick
      }
      window.setTimeout(tick, POLL_MS);
    }
    window.setTimeout(tick, POLL_MS);
  }

  function openTarget() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    if (!target) {
      return;
    }
    for (let d = target.closest("details"); d; d = d.parentElement.closest("details")) {
      d.open = true;
    }
    target.scrollIntoView({ block: "center" });
  }

  document.addEventListener("DOMContentLoaded", function () {
    follow();
    openTarget();
    window.addEventListener("hashchange", openTarget);
  });
})();
