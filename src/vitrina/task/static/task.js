/* The task page: start a task, approve or edit its plan, approve each step, watch live output.
   API calls carry the token (common.js); the event stream is read with fetch, not EventSource,
   so the Authorization header is sent too. */
(function () {
  "use strict";
  const V = window.Vitrina;
  const el = V.el;
  const $ = (id) => document.getElementById(id);
  const MAX_FOLLOW = 50; // reconnects of one wait (each stream lives up to 10 minutes on the server)
  let taskId = new URLSearchParams(location.search).get("id");
  let cursor = 0;
  let last = null;

  const t = (key, vars) => V.t("task." + key, vars);
  const nodeLabel = (node) => (V.t("task.nodes") || {})[node] || t("node_other");

  function statusText(task) {
    const status = task.status === "done" ? "finished" : task.status;
    return t("state." + status);
  }

  function renderPlan(task) {
    $("plan").querySelector("tbody").replaceChildren(...task.plan.map((s) => el("tr", { class: s.status },
      el("td", { text: String(s.n) }), el("td", { text: s.title }), el("td", { text: s.tool ? (V.t("task.tools")[s.tool] || s.tool) : "" }),
      el("td", { text: t("step_state." + s.status) }))));
  }

  function renderActions(task) {
    const actions = $("actions");
    actions.replaceChildren();
    $("edit").hidden = true;
    const pending = task.pending;
    if (!pending) return;
    for (const option of pending.options) {
      actions.append(el("button", { type: "button", class: "btn" + (option === "approve" ? " btn-primary" : ""),
        "data-action": option, onclick: () => act(option, task) }, t("action." + option)));
    }
  }

  function previewTable(o) {
    return el("div", { class: "table-scroll task-preview", tabindex: "0" }, el("table", { class: "result" },
      el("thead", {}, el("tr", {}, o.columns.map((c) => el("th", { text: c })))),
      el("tbody", {}, o.preview.map((row) => el("tr", {}, row.map((v) => el("td", { text: v === null || v === undefined ? "" : String(v) })))))));
  }

  function renderCurrent(task) {
    const current = $("current");
    current.replaceChildren();
    const pending = task.pending;
    if (!pending || pending.kind !== "step") return;
    const s = pending.step;
    current.append(el("h2", { class: "step-title", text: `${t("step")} ${s.n}. ${s.title}` }));
    if (s.report) current.append(el("p", { text: s.report }));
    if (s.error) current.append(el("p", { class: "error", text: s.error }));
    if (pending.notice) current.append(el("p", { class: "notice", text: pending.notice }));
    for (const o of s.outputs || []) if (o.columns && o.columns.length) current.append(previewTable(o));
  }

  function renderSummary(task) {
    const box = $("summary");
    if (task.summary_html) box.innerHTML = task.summary_html; // rendered by the server, raw HTML escaped there
    else box.replaceChildren();
    const files = $("files");
    files.replaceChildren();
    const links = task.downloads || [];
    if (!links.length) return;
    files.append(el("h2", { text: t("files") }), el("ul", { class: "task-files" }, links.map((f) => el("li", {},
      el("a", { href: f.url, download: f.name.split("/").pop(), "data-file": f.name, onclick: (ev) => {
        ev.preventDefault();
        V.download(f.url, f.name.split("/").pop()).catch((err) => V.banner(err.message, "error"));
      } }, "⬇ " + f.name)))));
  }

  function render(task) {
    last = task;
    $("task").hidden = false;
    $("status").replaceChildren(el("strong", { text: statusText(task) }), el("span", { class: "muted small", text: " · " + t("id") + " " + task.task_id }));
    // a crash (the server died mid-step) or a run resumed after a restart: said, not hidden
    if (task.notice) $("status").append(el("p", { class: "notice", role: "status", text: task.notice }));
    renderPlan(task);
    renderActions(task);
    renderCurrent(task);
    renderSummary(task);
  }

  async function act(action, task) {
    if (action === "edit") {
      $("edit").hidden = false;
      $("steps").value = task.plan.map((s) => s.title).join("\n");
      $("steps").focus();
      $("saveSteps").onclick = () => send({ action: "edit", steps: $("steps").value.split("\n").map((x) => x.trim()).filter(Boolean) });
      return;
    }
    const body = { action };
    if (action === "replan" || action === "redo") {
      const comment = window.prompt(t("comment"));
      if (comment === null) return;
      body.comment = comment;
    }
    await send(body);
  }

  function busy() {
    $("actions").replaceChildren();
    $("edit").hidden = true;
    $("status").replaceChildren(el("span", { class: "spinner" }), " ", el("span", { text: t("state.running") }));
  }

  async function send(body) {
    busy();  // no second click while the decision is on its way
    try {
      await V.api(`/api/tasks/${taskId}/decision`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    } catch (err) { V.banner(err.message, "error"); await refresh(); return; }
    follow();
  }

  function logEvent(e) {
    const step = e.step ? ` · ${e.step.n}. ${e.step.title}${e.step.error ? " ✗" : ""}` : "";
    $("log").append(el("li", { "data-node": e.node, text: nodeLabel(e.node) + step }));
  }

  /* Read the task's event stream until it says idle; then show the task. */
  async function follow() {
    busy();
    try {
      for (let attempt = 0; attempt < MAX_FOLLOW; attempt++) {
        const resp = await V.api(`/api/tasks/${taskId}/events?after=${cursor}`, { headers: { Accept: "text/event-stream" } });
        let finished = false;
        await V.readSse(resp, (data, id) => {
          if (id !== null) cursor = id + 1;
          logEvent(data);
          if (data.node === "idle" || data.node === "error") finished = true;
        });
        if (finished) break;
        const task = await V.json(`/api/tasks/${taskId}`);
        if (!task.running) break;
      }
    } catch (err) { V.banner(err.message, "error"); }
    await refresh();
  }

  async function refresh() {
    try { render(await V.json(`/api/tasks/${taskId}`)); } catch (err) { V.banner(err.message, "error"); }
  }

  async function start(ev) {
    ev.preventDefault();
    const request = $("request").value.trim();
    if (request.length < 3) { $("request").focus(); return; }
    try {
      const res = await V.json("/api/tasks", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ request, mode: $("auto").checked ? "auto" : "semi" }) });
      taskId = res.task_id; cursor = 0;
      history.replaceState(null, "", `?id=${taskId}`);
      $("log").replaceChildren();
      $("task").hidden = false;
      renderPlan({ plan: [] });
      await follow();
    } catch (err) { V.banner(err.message, "error"); }
  }

  async function main() {
    await V.start([]);
    $("start").addEventListener("submit", start);
    V.onLangChange.push(() => { if (last) render(last); });
    const fromChat = new URLSearchParams(location.search).get("request");
    if (fromChat && !taskId) $("request").value = fromChat;
    if (taskId) await refresh();
    document.body.dataset.ready = "1";
  }

  main();
})();
