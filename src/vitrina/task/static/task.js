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

  let focusStep = false; // after a decision: focus goes to the step that waits, not the page top

  /* What the task waits for, in words: whose decision, on which step. */
  function statusText(task) {
    const pending = task.pending;
    if (task.status === "awaiting_step" && pending && pending.step) {
      return t(pending.clarification ? "state.awaiting_clarify" : "state.awaiting_step", { n: pending.step.n });
    }
    const status = task.status === "done" ? "finished" : task.status;
    return t("state." + status);
  }

  /* The step the task waits on: its status says so ("ждёт вашего решения"), not "выполняется". */
  function awaiting(task, s) {
    return task.status === "awaiting_step" && task.pending && task.pending.step && task.pending.step.n === s.n;
  }

  function renderPlan(task) {
    $("plan").querySelector("tbody").replaceChildren(...task.plan.map((s) => {
      const waits = awaiting(task, s);
      const asked = s.question && s.question !== s.title ? el("div", { class: "step-question", text: t("question") + ": " + s.question }) : null;
      return el("tr", { class: s.status + (waits ? " awaiting" : "") },
        el("td", { text: String(s.n) }), el("td", {}, el("div", { text: s.title }), asked),
        el("td", { text: V.t("task.tools")[s.tool || "ask"] || s.tool }),  // a typed step is asked as a question
        el("td", { text: t("step_state." + (waits ? "awaiting" : s.status)) }));
    }));
  }

  function renderRequest(task) {
    $("request-box").hidden = !task.request;
    $("request-text").textContent = task.request || "";
    $("start").hidden = true;  // an open task: its request on top, not an empty form
  }

  function renderActions(task) {
    const actions = $("actions");
    actions.replaceChildren();
    $("edit").hidden = true;
    const pending = task.pending;
    if (!pending) return;
    for (const option of pending.options) {
      if (option === "clarify") continue;  // answered with the clarification's own buttons
      actions.append(el("button", { type: "button", class: "btn" + (option === "approve" ? " btn-primary" : ""),
        "data-action": option, onclick: () => act(option, task) }, t("action." + option)));
    }
  }

  /* A step's table as answers show it: labels, formatted numbers and dates (the server
     formats it: `table`), with how many rows the whole table has. */
  function previewTable(o) {
    const tb = o.table || { columns: o.columns, rows: o.preview.map((r) => r.map((v) => (v === null || v === undefined ? "" : String(v)))), numeric: [], total: o.row_count };
    const num = (i) => ((tb.numeric || [])[i] ? "num" : null);
    const shown = tb.rows.length;
    const caption = tb.total > shown ? t("preview_rows", { shown, total: tb.total }) : t("preview_all", { total: tb.total });
    return el("div", { class: "table-wrap" }, el("div", { class: "table-caption muted small", text: caption }),
      el("div", { class: "table-scroll task-preview", tabindex: "0", role: "region", "aria-label": caption }, el("table", { class: "result" },
        el("thead", {}, el("tr", {}, tb.columns.map((c, i) => el("th", { class: num(i), scope: "col", text: c })))),
        el("tbody", {}, tb.rows.map((row) => el("tr", {}, row.map((v, i) => el("td", { class: num(i), text: v }))))))));
  }

  /* A clarification the step's question waits for: its options as the chat shows them; a
     choice reruns the step with it. */
  function renderClarification(c) {
    return el("div", { class: "clarify" },
      el("p", { class: "clarify-q", text: c.question }),
      el("p", { class: "muted small", text: t("clarify") }),
      el("div", { class: "clarify-options" }, (c.options || []).map((o, i) => el("button", {
        type: "button", class: "btn option", "data-option": o.id, onclick: () => send({ action: "clarify", choice: o.id }),
      }, el("span", { class: "opt-n", text: String(i + 1) }), o.label))));
  }

  function renderCurrent(task) {
    const current = $("current");
    current.replaceChildren();
    const pending = task.pending;
    if (!pending || pending.kind !== "step") return;
    const s = pending.step;
    current.append(el("h2", { class: "step-title", id: "current-step", tabindex: "-1", text: `${t("step")} ${s.n}. ${s.title}` }));
    if (s.question && s.question !== s.title) current.append(el("p", { class: "step-question", text: t("question") + ": " + s.question }));
    if (s.report) current.append(el("p", { text: s.report }));
    if (pending.clarification) current.append(renderClarification(pending.clarification));
    else if (s.error) current.append(el("p", { class: "error", text: s.error }));
    if (pending.notice) current.append(el("p", { class: "notice", text: pending.notice }));
    const tables = (s.outputs || []).filter((o) => o.ok && o.columns && o.columns.length);
    if (tables.length) current.append(previewTable(tables[tables.length - 1]));
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
    renderRequest(task);
    renderPlan(task);
    renderActions(task);
    renderCurrent(task);
    renderSummary(task);
    if (focusStep) {
      focusStep = false;
      const target = $("current-step") || $("actions").querySelector("button") || $("status");
      if (target === $("status")) target.setAttribute("tabindex", "-1");
      target.focus();
      target.scrollIntoView({ block: "nearest" });
    }
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
    $("current").querySelectorAll("button").forEach((b) => { b.disabled = true; });
    $("actions").replaceChildren();
    $("edit").hidden = true;
    $("status").replaceChildren(el("span", { class: "spinner" }), " ", el("span", { text: t("state.running") }));
  }

  async function send(body) {
    focusStep = true;
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
      renderRequest({ request });
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
