/* The measure-docs page: contents by topic, the combined manual, one measure with Mermaid lineage. */
(function () {
  "use strict";
  const V = window.Vitrina;
  const el = V.el;
  const $ = (id) => document.getElementById(id);
  let index = null;
  let showing = 0;  // the latest show(): an earlier one whose answer comes later is dropped

  function renderNav() {
    const filter = $("measure-filter").value.trim().toLowerCase();
    const nav = $("measure-nav");
    nav.replaceChildren();
    if (!index || !index.available) return;
    const current = decodeURIComponent((location.hash.match(/^#measure=(.+)$/) || [])[1] || "");
    for (const group of index.topics) {
      const items = group.measures.filter((m) => !filter || m.name.toLowerCase().includes(filter));
      if (!items.length) continue;
      nav.append(el("h3", { text: group.topic }));
      for (const m of items) {
        nav.append(el("a", { onclick: () => V.closeDrawer(), href: "#measure=" + encodeURIComponent(m.file), class: current === m.file ? "active" : "", "data-measure": m.name },
          "[" + m.name + "]", m.level ? el("span", { class: "level", text: m.level }) : null));
      }
    }
  }

  /* Diagrams are drawn when they come near the view, one at a time (the combined manual holds
     hundreds: drawing them all at once froze the page), each in a box of its own with zoom. */
  let observer = null;
  let queue = Promise.resolve();

  function zoomBar(box) {
    const set = (k) => {
      const svg = box.querySelector("svg");
      if (!svg) return;
      const natural = Number(svg.dataset.width || svg.getBoundingClientRect().width);
      svg.dataset.width = natural;
      box.dataset.zoom = String(k);
      svg.style.width = Math.round(natural * k) + "px";
      svg.style.maxWidth = "none";
    };
    const zoom = (f) => set(Math.min(4, Math.max(0.25, Number(box.dataset.zoom || 1) * f)));
    return el("div", { class: "diagram-tools", role: "group", "aria-label": V.t("docs.zoom") },
      el("button", { type: "button", class: "btn btn-small", "aria-label": V.t("docs.zoom_in"), title: V.t("docs.zoom_in"), onclick: () => zoom(1.25) }, "+"),
      el("button", { type: "button", class: "btn btn-small", "aria-label": V.t("docs.zoom_out"), title: V.t("docs.zoom_out"), onclick: () => zoom(0.8) }, "−"),
      el("button", { type: "button", class: "btn btn-small", title: V.t("docs.zoom_reset"), onclick: () => set(1) }, "1:1"));
  }

  function drawOne(block) {
    queue = queue.then(async () => {
      if (block.dataset.processed || !block.isConnected) return;
      try { await window.mermaid.run({ nodes: [block] }); } catch (err) { V.banner("Mermaid: " + err.message, "error"); return; }
      const box = block.closest(".diagram");
      if (box && !box.querySelector(".diagram-tools")) box.prepend(zoomBar(box));
    });
    return queue;
  }

  function drawMermaid(root) {
    const blocks = [...root.querySelectorAll("pre.mermaid")];
    if (!blocks.length || !window.mermaid) return;
    if (observer) observer.disconnect();
    for (const block of blocks) {
      const box = el("div", { class: "diagram" });
      block.replaceWith(box);
      /* the scrolling box, not the diagram, takes keyboard focus (arrow keys scroll it) */
      box.append(el("div", { class: "diagram-scroll", tabindex: "0", role: "region", "aria-label": V.t("docs.diagram") }, block));
    }
    observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        drawOne(entry.target);
      }
    }, { rootMargin: "600px 0px" });
    blocks.forEach((b) => observer.observe(b));
  }

  /* What the address names (the manual or one measure). A language switch and a click on a
     measure each call show(); the manual's answer is the slower one, and if it came last it
     replaced the measure just opened, so only the latest call draws its answer. */
  async function show() {
    const mine = ++showing;
    const doc = $("doc");
    renderNav();
    if (!index || !index.available) {
      doc.replaceChildren(el("h1", { text: V.t("nav.docs") }), el("p", { class: "muted", text: V.t("docs.none") }));
      return;
    }
    const m = location.hash.match(/^#measure=(.+)$/);
    try {
      let data;
      if (m) {
        data = await V.json("/api/docs/measures/" + encodeURIComponent(decodeURIComponent(m[1])));
      } else {
        data = await V.json("/api/docs/manual");
      }
      if (mine !== showing) return;  // a later show() won
      doc.innerHTML = data.html; // rendered by the server from the manual; raw HTML is escaped there
      V.focusableScroll(doc);
      if (m && data.lineage && data.lineage.level) {
        doc.prepend(el("div", { class: "doc-meta" }, V.t("docs.level") + ": " + ((V.t("docs.levels") || {})[data.lineage.level] || data.lineage.level) + " · " + V.t("docs.model") + ": " + (index.model || "")));
        const box = el("div", { class: "doc-llm", id: "doc-llm" });
        const button = el("button", { type: "button", id: "doc-llm-button", class: "btn btn-small", text: V.t("docs.llm") });
        button.addEventListener("click", async () => {
          button.disabled = true;
          try {
            const worded = await V.json("/api/docs/measures/" + encodeURIComponent(decodeURIComponent(m[1])) + "?llm=true");
            const e = worded.explanation_llm;
            box.replaceChildren(el("p", { text: e.text }), el("p", { class: "muted", text: V.t(e.worded ? "docs.llm_ok" : "docs.llm_kept") }));
          } catch (err) {
            box.replaceChildren(el("p", { class: "muted", text: err.message }));
          } finally { button.disabled = false; }
        });
        doc.prepend(el("div", {}, button, box));
      }
      const anchor = !m && location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
      drawMermaid(doc);
      if (anchor) anchor.scrollIntoView(); else $("doc").parentElement.scrollTop = 0;
    } catch (err) {
      if (mine === showing) doc.replaceChildren(el("p", { class: "error", text: err.message }));
    }
  }

  async function main() {
    await V.start(["mermaid"]);
    if (window.mermaid) window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral",
      themeVariables: { fontSize: "15px" }, flowchart: { useMaxWidth: false, htmlLabels: false } });
    $("measure-filter").addEventListener("input", renderNav);
    window.addEventListener("hashchange", () => {
      if (location.hash === "#manual" || /^#measure=/.test(location.hash) || !location.hash) show();
      else if (document.getElementById(location.hash.slice(1))) document.getElementById(location.hash.slice(1)).scrollIntoView();
    });
    V.onLangChange.push(show);
    try { index = await V.json("/api/docs"); } catch (err) { V.banner(err.message, "error"); }
    await show();
    document.body.dataset.ready = "1";
  }

  main();
})();
