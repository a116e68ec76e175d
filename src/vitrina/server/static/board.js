/* The build board: builds, work tasks in columns by status, a task's page. Every call sends
   the API token the chat page stored; every text goes in through textContent. */
(function () {
  "use strict";
  const COLUMNS = ["new", "in_progress", "review", "rework", "blocked", "done"];
  const token = () => localStorage.getItem("vitrina.token") || "";
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v; else if (k === "onclick") node.onclick = v; else node.setAttribute(k, v);
    }
    for (const c of children) if (c) node.append(c);
    return node;
  }
  async function get(path) {
    const answer = await fetch(path, { headers: { Authorization: "Bearer " + token() } });
    if (!answer.ok) throw new Error(path + ": HTTP " + answer.status);
    return answer.json();
  }
  async function image(url) {
    const answer = await fetch(url, { headers: { Authorization: "Bearer " + token() } });
    if (!answer.ok) return null;
    return URL.createObjectURL(await answer.blob());
  }
  function fail(error) {
    const box = document.getElementById("board-error");
    box.textContent = String(error.message || error);
    box.hidden = false;
  }
  async function showTask(id) {
    const data = await get("/api/board/tasks/" + id);
    const box = document.getElementById("task");
    box.replaceChildren(el("h2", { text: "#" + data.task.id + " " + data.task.title + " · " + data.task.status }));
    for (const c of data.comments) {
      const parsed = [];
      if (c.handoff) parsed.push("HANDOFF: " + c.handoff.status + " → " + c.handoff.next);
      if (c.verdict) parsed.push("VERDICT: " + c.verdict.verdict + (c.verdict.amendments.length ? " (" + c.verdict.amendments.length + " amendments)" : ""));
      box.append(el("div", { class: "board-comment", "data-comment": String(c.id) },
        el("strong", { text: c.author + " · r" + c.round }),
        parsed.length ? el("div", { class: "parsed", text: parsed.join(" · ") }) : null,
        el("pre", { text: c.text })));
    }
    if (data.children.length) {
      box.append(el("h3", { text: "Reviews and blockers" }));
      for (const t of data.children) {
        box.append(el("div", { class: "board-card", "data-task": String(t.id), onclick: () => showTask(t.id).catch(fail),
          text: "#" + t.id + " " + t.kind + " · " + t.role + " · " + t.status }));
      }
    }
    for (const a of data.attachments) {
      const src = await image(a.url);
      if (src) box.append(el("figure", {}, el("img", { src, alt: a.name }), el("figcaption", { text: a.name })));
    }
    if (data.diff) box.append(el("h3", { text: "Diff" }), el("pre", { class: "diff", text: data.diff }));
    box.hidden = false;
  }
  async function showBuild(id) {
    const data = await get("/api/board/builds/" + id);
    const columns = document.getElementById("columns");
    columns.replaceChildren();
    for (const name of COLUMNS) {
      const column = el("div", { class: "board-column", "data-status": name }, el("h2", { text: name.replace("_", " ") }));
      for (const t of data.columns[name] || []) {
        const card = el("div", { class: "board-card", "data-task": String(t.id), onclick: () => showTask(t.id).catch(fail) },
          el("div", { text: "#" + t.id + " " + t.step + " · " + t.role + " · r" + t.round }));
        for (const r of t.reviews) card.append(el("div", { class: "review", text: r.role + ": " + (r.verdict || r.status) }));
        column.append(card);
      }
      columns.append(column);
    }
    document.body.dataset.ready = "1";
  }
  async function start() {
    const data = await get("/api/board/builds");
    const select = document.getElementById("build-select");
    for (const b of data.builds) select.append(el("option", { value: String(b.id), text: "#" + b.id + " " + b.title + " · " + b.status }));
    select.onchange = () => showBuild(select.value).catch(fail);
    if (data.builds.length) await showBuild(data.builds[0].id); else document.body.dataset.ready = "1";
  }
  start().catch(fail);
})();
