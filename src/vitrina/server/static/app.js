/* The chat page: dialogs, live steps over SSE, answers with tables, charts and Excel. */
(function () {
  "use strict";
  const V = window.Vitrina;
  const el = V.el;
  const $ = (id) => document.getElementById(id);

  const state = {
    topics: [], threads: [], thread: null, busy: false,
    start: { segment: "auto", topics: [] },
  };

  /* ---------- sidebar: past dialogs ---------- */
  function relTime(ts) {
    const d = new Date(ts * 1000);
    return d.toLocaleString(V.lang === "ru" ? "ru-RU" : "en-GB", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  }

  async function loadThreads() {
    state.threads = await V.json("/api/threads");
    renderThreads();
  }

  function renderThreads() {
    const list = $("thread-list");
    list.replaceChildren(...state.threads.map((t) => el("li", { class: state.thread && state.thread.id === t.id ? "active" : "" },
      el("a", { href: "#/t/" + t.id, "data-thread": t.id },
        el("span", { class: "thread-title", text: t.title || V.t("dialog.new") }),
        el("span", { class: "thread-meta" }, relTime(t.updated_at), " · ", V.t("segment." + t.segment))))));
    $("thread-empty").hidden = state.threads.length > 0;
  }

  /* ---------- start panel: segment and topics ---------- */
  function topicName(t) { return V.lang === "ru" ? t.name_ru : t.name_en; }

  function renderStart() {
    const seg = $("segment-picker");
    seg.replaceChildren(...["auto", "b2b", "b2c"].map((s) => el("button", {
      type: "button", role: "radio", "aria-checked": String(state.start.segment === s),
      class: state.start.segment === s ? "active" : "", "data-segment": s,
      onclick: () => { state.start.segment = s; renderStart(); },
    }, V.t("segment." + s))));
    const picker = $("topic-picker");
    picker.replaceChildren(...state.topics.map((t) => el("button", {
      type: "button", class: "chip" + (state.start.topics.includes(t.id) ? " active" : ""), "data-topic": t.id,
      title: t.description || "",
      onclick: () => {
        const on = state.start.topics.includes(t.id);
        state.start.topics = on ? state.start.topics.filter((x) => x !== t.id) : [...state.start.topics, t.id];
        renderStart();
      },
    }, topicName(t))));
    $("examples").replaceChildren(...V.t("examples").map((q) => el("button", {
      type: "button", class: "example", onclick: () => { $("question").value = q; $("question").focus(); },
    }, q)));
  }

  function renderHeader() {
    const t = state.thread;
    $("dialog-title").textContent = (t && t.title) || V.t("dialog.new");
    const opts = $("dialog-options");
    opts.replaceChildren();
    if (t) {
      opts.append(el("span", { class: "badge" }, V.t("start.segment") + ": " + V.t("segment." + t.segment)));
      for (const id of t.topics || []) {
        const topic = state.topics.find((x) => x.id === id);
        opts.append(el("span", { class: "badge badge-topic" }, topic ? topicName(topic) : id));
      }
    }
    $("start-panel").hidden = Boolean(t && t.turns && t.turns.length);
  }

  /* ---------- one turn ---------- */
  function fmtMs(ms) { return ms >= 1000 ? (ms / 1000).toFixed(2) + " s" : Math.round(ms) + " ms"; }

  function stepsFromTrace(trace) {
    const steps = [];
    for (const e of trace || []) {
      const last = steps[steps.length - 1];
      if (last && last.step === e.node) last.trace.push(e);
      else steps.push({ step: e.node, ms: null, trace: [e] });
    }
    return steps;
  }

  function stepItem(s) {
    const events = (s.trace || []).filter((e) => e.kind !== "measurement" || e.message);
    const li = el("li", { class: "step", "data-step": s.step },
      el("span", { class: "step-dot" }),
      el("span", { class: "step-name", text: V.stepName(s.step) }),
      el("span", { class: "step-ms", text: s.ms === null ? "" : fmtMs(s.ms) }));
    if (events.length) {
      li.append(el("ul", { class: "step-events" }, events.map((e) =>
        el("li", { class: "ev ev-" + e.kind, title: JSON.stringify(e.data || {}) }, el("span", { class: "ev-kind", text: e.kind }), " ", e.message))));
    }
    return li;
  }

  function turnShell(question) {
    const steps = el("ol", { class: "steps" });
    const total = el("span", { class: "steps-total muted small" });
    const body = el("div", { class: "turn-body" }, el("div", { class: "turn-pending muted" }, el("span", { class: "spinner" }), V.t("turn.running")));
    const node = el("article", { class: "turn running" },
      el("div", { class: "turn-question" }, el("span", { class: "who", text: V.t("turn.you") }), el("span", { class: "q-text", text: question })),
      el("div", { class: "turn-grid" },
        body,
        el("aside", { class: "turn-steps" }, el("div", { class: "steps-head" }, el("strong", { text: V.t("turn.steps") }), total), steps)));
    node._steps = steps; node._total = total; node._body = body; node._ms = 0;
    return node;
  }

  function addStep(node, s) {
    node._steps.append(stepItem(s));
    if (s.ms !== null) { node._ms += s.ms; node._total.textContent = V.t("turn.total") + " " + fmtMs(node._ms); }
  }

  function numberTicks(spec) {
    const fmt = new Intl.NumberFormat(V.lang === "ru" ? "ru-RU" : "en-US", { notation: "compact", maximumFractionDigits: 1 });
    const scales = (spec.options && spec.options.scales) || {};
    for (const [axis, scale] of Object.entries(scales)) {
      if (axis.startsWith("x") && spec.options.indexAxis !== "y") continue;
      if (scale.type && scale.type !== "linear") continue;
      scale.ticks = Object.assign({ callback: (v) => fmt.format(v) }, scale.ticks || {});
    }
    return spec;
  }

  function renderChart(chart) {
    if (!chart) return null;
    if (chart.type === "kpi") {
      const items = (chart.data && chart.data.items) || [];
      return el("div", { class: "kpis" }, items.map((it) => el("div", { class: "kpi-card" },
        el("div", { class: "kpi-label", text: it.label }), el("div", { class: "kpi-value", text: it.value }))));
    }
    const canvas = el("canvas", { "aria-label": V.t("turn.chart"), role: "img" });
    const box = el("div", { class: "chart-box" }, canvas);
    if (typeof window.Chart !== "function") {
      box.classList.add("chart-missing");
      box.replaceChildren(el("p", { class: "muted small", text: V.t("vendor.missing", { names: "chartjs" }) }));
      return box;
    }
    requestAnimationFrame(() => {
      const spec = numberTicks(JSON.parse(JSON.stringify(chart)));
      spec.options = Object.assign({ responsive: true, maintainAspectRatio: false, animation: false }, spec.options || {});
      try { box._chart = new window.Chart(canvas, spec); } catch (err) { box.replaceChildren(el("p", { class: "error", text: String(err) })); }
    });
    return box;
  }

  function renderTable(table) {
    if (!table || !table.columns || !table.columns.length) return null;
    const numeric = table.numeric || [];
    const thead = el("thead", {}, el("tr", {}, table.columns.map((c, i) => el("th", { class: numeric[i] ? "num" : "" }, c))));
    const tbody = el("tbody", {}, (table.rows || []).map((r) => el("tr", {}, r.map((v, i) =>
      el("td", { class: numeric[i] ? "num" : "" }, v === null ? "—" : String(v))))));
    const shown = table.shown ?? (table.rows || []).length;
    const total = table.total ?? shown;
    const caption = total > shown ? V.t("table.shown", { shown, total }) : V.t("table.all", { total });
    return el("div", { class: "table-wrap" },
      el("div", { class: "table-caption" }, el("span", { class: "table-note", text: caption }), table.note && table.note !== caption ? el("span", { class: "muted small", text: " · " + table.note }) : null),
      el("div", { class: "table-scroll" }, el("table", { class: "result" }, thead, tbody)));
  }

  function renderClarification(turn, live) {
    const c = turn.clarification;
    if (!c) return null;
    const chosen = turn._chosen;
    return el("div", { class: "clarify" },
      el("p", { class: "clarify-q", text: c.question }),
      el("div", { class: "clarify-options" }, (c.options || []).map((o, i) => el("button", {
        type: "button", class: "btn option" + (chosen === o.id ? " chosen" : ""), "data-option": o.id, disabled: !live,
        onclick: () => send(o.label, { fromOption: true }),
      }, el("span", { class: "opt-n", text: String(i + 1) }), o.label))));
  }

  function renderResult(node, r, live) {
    const status = r.status;
    node.classList.remove("running");
    node.classList.add("status-" + status);
    const parts = [];
    parts.push(el("div", { class: "answer-head" },
      el("span", { class: "status status-" + status, text: V.t("status." + status) }),
      r.rewritten_question && r.rewritten_question !== r.question
        ? el("span", { class: "muted small" }, V.t("turn.understood") + ": ", el("em", { text: r.rewritten_question })) : null));
    if (status === "clarification") {
      parts.push(renderClarification(r, live));
    } else if (r.answer) {
      parts.push(el("p", { class: "answer", text: r.answer }));
    }
    if (status === "answered") {
      const kpiOnly = r.chart && r.chart.type === "kpi" && r.table && r.table.total === 1;
      parts.push(renderChart(r.chart));
      if (!kpiOnly) parts.push(renderTable(r.table));
    }
    const actions = el("div", { class: "actions" });
    if (r.excel_url) {
      actions.append(el("a", { class: "btn btn-excel", href: r.excel_url, download: "vitrina-" + r.run_id + ".xlsx",
        onclick: (ev) => { if (V.token()) { ev.preventDefault(); V.download(r.excel_url, "vitrina-" + r.run_id + ".xlsx"); } } },
      "⬇ " + V.t("turn.excel")));
    }
    if (r.chart_png_url) {
      actions.append(el("a", { class: "btn btn-quiet", href: r.chart_png_url, download: "vitrina-" + r.run_id + ".png",
        onclick: (ev) => { if (V.token()) { ev.preventDefault(); V.download(r.chart_png_url, "vitrina-" + r.run_id + ".png"); } } },
      V.t("turn.png")));
    }
    if (r.sql) {
      const copy = el("button", { type: "button", class: "btn btn-quiet", onclick: async () => {
        try { await navigator.clipboard.writeText(r.sql); copy.textContent = V.t("turn.copied"); } catch (err) { copy.textContent = "—"; }
      } }, V.t("turn.copy"));
      actions.append(copy);
    }
    if (actions.childNodes.length) parts.push(actions);
    if (r.sql) parts.push(el("details", { class: "sql" }, el("summary", { text: V.t("turn.sql") }), el("pre", {}, el("code", { text: r.sql }))));
    const checks = (r.checks || []).filter((c) => c && (c.message || c.text));
    if (checks.length) {
      parts.push(el("details", { class: "checks" }, el("summary", { text: V.t("turn.checks") + " (" + checks.length + ")" }),
        el("ul", {}, checks.map((c) => el("li", { class: "check-" + (c.check || "info") }, c.message || c.text)))));
    }
    node._body.replaceChildren(...parts.filter(Boolean));
  }

  function renderError(node, message) {
    node.classList.remove("running");
    node.classList.add("status-failed");
    node._body.replaceChildren(el("p", { class: "error", text: message }));
  }

  function renderTurns(turns) {
    const conv = $("conversation");
    conv.replaceChildren();
    turns.forEach((turn, i) => {
      const next = turns[i + 1];
      if (turn.status === "clarification" && next && next.chosen) turn._chosen = Object.values(next.chosen)[0];
      const node = turnShell(turn.question || "");
      stepsFromTrace(turn.trace).forEach((s) => addStep(node, s));
      renderResult(node, turn, i === turns.length - 1);
      conv.append(node);
    });
  }

  /* ---------- dialogs ---------- */
  async function openThread(id) {
    try {
      state.thread = await V.json("/api/threads/" + encodeURIComponent(id));
    } catch (err) {
      state.thread = null;
      V.banner(err.message, "error");
      location.hash = "";
      newDialog();
      return;
    }
    V.banner(null);
    renderHeader();
    renderThreads();
    renderTurns(state.thread.turns);
    scrollDown();
  }

  function newDialog() {
    state.thread = null;
    state.start = { segment: "auto", topics: [] };
    $("conversation").replaceChildren();
    renderStart();
    renderHeader();
    renderThreads();
    if (location.hash) history.replaceState(null, "", location.pathname);
    $("question").focus();
  }

  function scrollDown() {
    const conv = $("conversation");
    conv.lastElementChild && conv.lastElementChild.scrollIntoView({ block: "end", behavior: "instant" });
  }

  async function readSse(resp, onEvent) {
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const chunk = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = chunk.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
        if (data) onEvent(JSON.parse(data));
      }
    }
  }

  async function send(text, opts) {
    text = (text || "").trim();
    if (!text || state.busy) return;
    state.busy = true;
    $("send").disabled = true;
    document.querySelectorAll(".clarify-options .option").forEach((b) => { b.disabled = true; if (b.textContent.endsWith(text)) b.classList.add("chosen"); });
    try {
      if (!state.thread) {
        const created = await V.json("/api/threads", { method: "POST", headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ segment: state.start.segment, topics: state.start.topics }) });
        state.thread = { id: created.id, segment: state.start.segment, topics: state.start.topics, title: text, turns: [] };
        history.replaceState(null, "", "#/t/" + created.id);
      }
      state.thread.turns = state.thread.turns || [];
      $("start-panel").hidden = true;
      renderHeader();
      $("start-panel").hidden = true;
      const node = turnShell(text);
      $("conversation").append(node);
      scrollDown();
      $("question").value = "";
      const resp = await V.api("/api/threads/" + state.thread.id + "/messages", {
        method: "POST", headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify({ text }),
      });
      await readSse(resp, (ev) => {
        if (ev.type === "step") { addStep(node, ev); }
        else if (ev.type === "result") {
          state.thread.turns.push(ev.result);
          if (!state.thread.title) state.thread.title = ev.result.question;
          renderResult(node, ev.result, true);
        } else if (ev.type === "error") { renderError(node, V.errorText(ev, 500)); }
        scrollDown();
      });
      if (node.classList.contains("running")) renderError(node, V.t("error.network"));
      await loadThreads();
      renderHeader();
    } catch (err) {
      const last = $("conversation").lastElementChild;
      if (last && last.classList.contains("running")) renderError(last, err.message); else V.banner(err.message, "error");
    } finally {
      state.busy = false;
      $("send").disabled = false;
      $("question").focus();
    }
  }

  function route() {
    const m = location.hash.match(/^#\/t\/([A-Za-z0-9_-]+)$/);
    if (m) { if (!state.thread || state.thread.id !== m[1]) openThread(m[1]); }
    else if (state.thread) newDialog();
  }

  async function main() {
    await V.start(["chartjs"]);
    $("composer").addEventListener("submit", (ev) => { ev.preventDefault(); send($("question").value); });
    $("question").addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); send($("question").value); }
    });
    $("new-thread").addEventListener("click", newDialog);
    window.addEventListener("hashchange", route);
    V.onLangChange.push(() => { renderStart(); renderHeader(); renderThreads(); if (state.thread && state.thread.turns.length) renderTurns(state.thread.turns); });
    try {
      [state.topics] = await Promise.all([V.json("/api/catalog/topics"), loadThreads()]);
    } catch (err) { V.banner(err.message, "error"); }
    renderStart();
    renderHeader();
    if (location.hash) route(); else $("question").focus();
    document.body.dataset.ready = "1";
  }

  main();
})();
