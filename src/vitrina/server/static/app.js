/* The chat page: dialogs, live steps over SSE, answers with tables, charts and Excel. */
(function () {
  "use strict";
  const V = window.Vitrina;
  const el = V.el;
  const $ = (id) => document.getElementById(id);

  const state = {
    topics: [], threads: [], thread: null, busy: false,
    start: { segment: "auto", topics: [] },
    catalogStart: { segments: [], segment_name: {}, topics: { ru: [], en: [] }, examples: { ru: [], en: [] } },
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
    const query = ($("thread-search").value || "").trim().toLowerCase();
    const shown = state.threads.filter((t) => !query || (t.title || "").toLowerCase().includes(query));
    list.replaceChildren(...shown.map((t) => el("li", { class: state.thread && state.thread.id === t.id ? "active" : "" },
      el("a", { href: "#/t/" + t.id, "data-thread": t.id, onclick: closeDrawer },
        el("span", { class: "thread-title", text: t.title || V.t("dialog.new") }),
        el("span", { class: "thread-meta" }, relTime(t.updated_at), " · ", segmentLabel(t.segment))),
      el("span", { class: "thread-tools" },
        el("button", { type: "button", class: "icon-button", title: V.t("threads.rename"), "aria-label": V.t("threads.rename"),
          "data-rename": t.id, onclick: () => renameThread(t) }, "✎"),
        el("button", { type: "button", class: "icon-button", title: V.t("threads.delete"), "aria-label": V.t("threads.delete"),
          "data-delete": t.id, onclick: () => deleteThread(t) }, "✕")))));
    $("thread-empty").hidden = shown.length > 0;
    $("thread-empty").textContent = query ? V.t("threads.none_found") : V.t("threads.empty");
  }

  async function renameThread(t) {
    const title = window.prompt(V.t("threads.rename_prompt"), t.title || "");
    if (title === null || !title.trim()) return;
    try {
      await V.json("/api/threads/" + t.id, { method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ title: title.trim() }) });
      if (state.thread && state.thread.id === t.id) state.thread.title = title.trim();
      await loadThreads();
      renderHeader();
    } catch (err) { V.banner(err.message, "error"); }
  }

  async function deleteThread(t) {
    if (!window.confirm(V.t("threads.delete_confirm", { title: t.title || V.t("dialog.new") }))) return;
    try {
      await V.json("/api/threads/" + t.id, { method: "DELETE" });
      if (state.thread && state.thread.id === t.id) newDialog();
      await loadThreads();
    } catch (err) { V.banner(err.message, "error"); }
  }

  const closeDrawer = () => V.closeDrawer();

  /* ---------- start panel: segment and topics ---------- */
  function segmentLabel(id) {
    const seg = state.catalogStart.segments.find((s) => s.id === id);
    return seg ? seg.label : V.t("segment.auto");
  }

  function topicName(t) { return V.lang === "ru" ? t.name_ru : t.name_en; }

  function renderStart() {
    /* the segments, topics and examples are the loaded catalog's (GET /api/catalog/start) */
    const info = state.catalogStart;
    const segments = info.segments.length ? [{ id: "auto", label: V.t("segment.auto") }, ...info.segments] : [];
    $("segment-field").hidden = !segments.length;
    $("segment-name").textContent = info.segment_name[V.lang] || V.t("start.segment");
    $("segment-picker").replaceChildren(...segments.map((s) => el("button", {
      type: "button", role: "radio", "aria-checked": String(state.start.segment === s.id),
      class: state.start.segment === s.id ? "active" : "", "data-segment": s.id,
      onclick: () => { state.start.segment = s.id; renderStart(); },
    }, s.label)));
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
    const topics = info.topics[V.lang].slice(0, 3).map((t) => t.toLowerCase()).join(", ");
    $("question").placeholder = topics ? V.t("composer.placeholder_topics", { topics }) : V.t("composer.placeholder");
    const examples = info.examples[V.lang].length ? info.examples[V.lang] : info.examples[V.lang === "ru" ? "en" : "ru"];
    $("examples").closest(".field").hidden = !examples.length;
    $("examples").replaceChildren(...examples.map((q) => el("button", {
      type: "button", class: "example", onclick: () => { $("question").value = q; $("question").focus(); },
    }, q)));
  }

  function renderHeader() {
    const t = state.thread;
    $("dialog-title").textContent = (t && t.title) || V.t("dialog.new");
    const opts = $("dialog-options");
    opts.replaceChildren();
    if (t) {
      const seg = state.catalogStart.segments.find((s) => s.id === t.segment);
      if (seg) opts.append(el("span", { class: "badge" }, (state.catalogStart.segment_name[V.lang] || V.t("start.segment")) + ": " + seg.label));
      for (const id of t.topics || []) {
        const topic = state.topics.find((x) => x.id === id);
        opts.append(el("span", { class: "badge badge-topic" }, topic ? topicName(topic) : id));
      }
    }
    $("start-panel").hidden = Boolean(t && ((t.turns && t.turns.length) || t.live));
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

  /* Recorded durations (kept by the server) win over steps rebuilt from the trace. */
  function turnSteps(turn) {
    const fromTrace = stepsFromTrace(turn.trace);
    if (!turn.steps || !turn.steps.length) return fromTrace;
    const byStep = {};
    for (const s of fromTrace) (byStep[s.step] = byStep[s.step] || []).push(s.trace);
    return turn.steps.map((s) => ({ step: s.step, ms: s.ms, trace: (byStep[s.step] || []).shift() || [] }));
  }

  function stepItem(s) {
    const events = (s.trace || []).filter((e) => e.kind !== "measurement" || e.message);
    const li = el("li", { class: "step", "data-step": s.step },
      el("span", { class: "step-dot" }),
      el("span", { class: "step-name", text: V.stepName(s.step) }),
      el("span", { class: "step-ms", text: s.ms === null || s.ms === undefined ? "" : fmtMs(s.ms) }));
    if (events.length) {  /* developer detail: shown under "Technical details" only */
      li.append(el("ul", { class: "step-events dev" }, events.map((e) =>
        el("li", { class: "ev ev-" + e.kind, title: JSON.stringify(e.data || {}) }, el("span", { class: "ev-kind", text: e.kind }), " ", e.message))));
    }
    return li;
  }

  function detailsToggle() {
    const box = el("input", { type: "checkbox", class: "details-toggle", checked: V.details(), onchange: (ev) => {
      localStorage.setItem("vitrina.details", ev.target.checked ? "1" : "0");
      applyDetails();
      if (state.thread && state.thread.turns.length) renderTurns(state.thread.turns, { keepScroll: true });
    } });
    return el("label", { class: "details-label small" }, box, " ", V.t("turn.details"));
  }
  function applyDetails() { document.body.classList.toggle("show-details", V.details()); }

  function turnShell(question) {
    const steps = el("ol", { class: "steps" });
    const total = el("span", { class: "steps-total muted small" });
    const body = el("div", { class: "turn-body" }, el("div", { class: "turn-pending muted" }, el("span", { class: "spinner" }), V.t("turn.running")));
    const node = el("article", { class: "turn running" },
      el("div", { class: "turn-question" }, el("span", { class: "who", text: V.t("turn.you") }), el("span", { class: "q-text", text: question })),
      el("div", { class: "turn-grid" },
        body,
        el("details", { class: "turn-steps", open: !window.matchMedia("(max-width: 767px)").matches },
          el("summary", { class: "steps-head" }, el("strong", { text: V.t("turn.steps") }), total),
          detailsToggle(), steps)));
    node._steps = steps; node._total = total; node._body = body; node._ms = 0;
    return node;
  }

  function addStep(node, s) {
    node._steps.append(stepItem(s));
    (node._timings = node._timings || []).push({ step: s.step, ms: s.ms });  // kept with the turn: a re-render shows them
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

  /* The types a chart may switch to, by the chart rules: a line (periods) may be bars; a
     pie may be bars. Bars stay bars: a line across categories, or a pie of parts that are
     not shares of a whole, would misread the data. */
  function chartTypes(chart) {
    const ds = (chart.data && chart.data.datasets) || [];
    if (chart.type === "line") return ["line", "bar"];
    if ((chart.type === "pie" || chart.type === "doughnut") && ds.length === 1) return [chart.type, "bar"];
    return [chart.type];
  }

  function asType(chart, type) {
    const spec = JSON.parse(JSON.stringify(chart));
    if (type === chart.type) return spec;
    spec.type = type;
    if (type === "bar") {  // bars are read by their length: every value axis starts at zero
      for (const [axis, scale] of Object.entries((spec.options && spec.options.scales) || {})) {
        if (!axis.startsWith("x") && (!scale.type || scale.type === "linear")) scale.beginAtZero = true;
      }
    }
    if (type === "bar" && (chart.type === "pie" || chart.type === "doughnut")) {
      spec.options = Object.assign({}, spec.options, { plugins: Object.assign({}, (spec.options || {}).plugins, { legend: { display: false } }) });
      spec.options.scales = { y: { beginAtZero: true } };
    }
    return spec;
  }

  function renderChart(chart) {
    if (!chart) return null;
    const types = chart.type === "kpi" ? [] : chartTypes(chart);
    if (types.length > 1 && typeof window.Chart === "function") {
      const wrap = el("div", { class: "chart-wrap" });
      let current = chart.type;
      const bar = el("div", { class: "chart-types", role: "group", "aria-label": V.t("turn.chart_type") });
      const draw = () => {
        bar.replaceChildren(...types.map((tp) => el("button", { type: "button", class: "btn btn-small" + (tp === current ? " active" : ""),
          "aria-pressed": String(tp === current), "data-chart-type": tp, onclick: () => { current = tp; draw(); } }, V.t("chart." + tp))));
        const old = wrap.querySelector(".chart-box");
        if (old && old._chart) old._chart.destroy();
        wrap.replaceChildren(bar, drawChart(asType(chart, current)));
      };
      draw();
      return wrap;
    }
    return drawChart(chart);
  }

  function drawChart(chart) {
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
      const spec = V.fitChartLabels(numberTicks(JSON.parse(JSON.stringify(chart))));
      spec.options = Object.assign({ responsive: true, maintainAspectRatio: false, animation: false }, spec.options || {});
      try { box._chart = new window.Chart(canvas, spec); } catch (err) { box.replaceChildren(el("p", { class: "error", text: String(err) })); }
    });
    return box;
  }

  /* A formatted cell back to a number for sorting: "1 234,5 ₽" -> 1234.5, "12%" -> 12. */
  function cellNumber(v) {
    if (v === null || v === undefined) return -Infinity;
    if (typeof v === "number") return v;
    const text = String(v).replace(/[\s\u00a0\u202f]/g, "").replace(/[^0-9,.\-−]/g, "").replace("−", "-");
    const n = Number(text.includes(",") && !text.includes(".") ? text.replace(",", ".") : text.replace(/,/g, ""));
    return Number.isFinite(n) ? n : -Infinity;
  }

  function renderTable(table) {
    if (!table || !table.columns || !table.columns.length) return null;
    const numeric = table.numeric || [];
    const rows = (table.rows || []).slice();
    const sort = { col: -1, dir: 1 };
    const tbody = el("tbody");
    const fill = () => tbody.replaceChildren(...rows.map((r) => el("tr", {}, r.map((v, i) =>
      el("td", { class: numeric[i] ? "num" : "" }, v === null ? "—" : String(v))))));
    const heads = table.columns.map((c, i) => el("th", { class: numeric[i] ? "num" : "", "aria-sort": "none", scope: "col" },
      el("button", { type: "button", class: "sort-button", title: V.t("turn.sort"), onclick: () => {
        sort.dir = sort.col === i ? -sort.dir : (numeric[i] ? -1 : 1);
        sort.col = i;
        const key = numeric[i] ? (r) => cellNumber(r[i]) : (r) => String(r[i] ?? "");
        rows.sort((a, b) => { const x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : 0) * sort.dir; });
        heads.forEach((h, j) => h.setAttribute("aria-sort", j === i ? (sort.dir > 0 ? "ascending" : "descending") : "none"));
        fill();
      } }, c, el("span", { class: "sort-mark", "aria-hidden": "true" }))));
    const thead = el("thead", {}, el("tr", {}, heads));
    fill();
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

  /* Thumbs up/down with an optional comment; stored per owner and put in the eval review queue. */
  function renderFeedback(threadId, runId) {
    const box = el("div", { class: "feedback", role: "group", "aria-label": V.t("turn.feedback") });
    const comment = el("textarea", { class: "fb-comment", rows: "2", maxlength: "2000", placeholder: V.t("fb.comment"), "aria-label": V.t("fb.comment") });
    const status = el("span", { class: "fb-status muted small", role: "status" });
    let rating = null;
    const submit = async () => {
      try {
        await V.json("/api/threads/" + encodeURIComponent(threadId) + "/feedback", { method: "POST",
          headers: { "Content-Type": "application/json" }, body: JSON.stringify({ run_id: runId, rating, comment: comment.value }) });
        status.textContent = V.t("fb.thanks");
      } catch (err) { status.textContent = String(err.message || err); }
    };
    const choose = (value) => () => {
      rating = value;
      up.setAttribute("aria-pressed", String(value === "up"));
      down.setAttribute("aria-pressed", String(value === "down"));
      form.hidden = false;
      submit();
    };
    const up = el("button", { type: "button", class: "btn btn-quiet fb-up", "aria-pressed": "false", title: V.t("fb.up"), onclick: choose("up") }, "✓ " + V.t("fb.up"));
    const down = el("button", { type: "button", class: "btn btn-quiet fb-down", "aria-pressed": "false", title: V.t("fb.down"), onclick: choose("down") }, "✗ " + V.t("fb.down"));
    const form = el("div", { class: "fb-form" }, comment, el("button", { type: "button", class: "btn fb-send", onclick: submit }, V.t("fb.send")));
    form.hidden = true;
    box.append(el("span", { class: "muted small", text: V.t("turn.feedback") }), up, down, status, form);
    return box;
  }

  /* The downloads hold every row of the result, whatever the table shows: the Excel link
     says so, and a CSV link stands beside it. */
  function allRowsFiles(actions, r) {
    const n = r.row_count ?? (r.table && r.table.total);
    const all = n ? Number(n).toLocaleString(V.lang === "ru" ? "ru-RU" : "en-US") : null;
    const excel = actions.querySelector(".btn-excel");
    if (excel && all) excel.textContent = "⬇ " + V.t("turn.excel_all", { n: all });
    if (!r.csv_url) return;
    const name = (excel && excel.getAttribute("download") || "vitrina-" + r.run_id + ".xlsx").replace(/\.xlsx$/, ".csv");
    const csv = el("a", { class: "btn btn-quiet btn-csv", href: r.csv_url, download: name,
      onclick: (ev) => { if (V.token()) { ev.preventDefault(); V.download(r.csv_url, name); } } },
    all ? V.t("turn.csv_all", { n: all }) : "CSV");
    if (excel) excel.after(csv); else actions.prepend(csv);
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
      const notice = r.model_unavailable && r.model_unavailable.notice;
      const answer = notice && r.answer.endsWith(notice) ? r.answer.slice(0, -notice.length).trim() : r.answer;
      if (answer) parts.push(el("p", { class: "answer", text: answer }));
      if (notice) parts.push(el("p", { class: "model-notice", role: "note", title: r.model_unavailable.reason || "", text: "⚠ " + notice }));
    }
    if (r.report) parts.push(renderReportChoice(r.report));
    if (status === "answered") {
      const kpiOnly = r.chart && r.chart.type === "kpi" && r.table && r.table.total === 1;
      parts.push(renderChart(r.chart));
      /* a stored result (its CSV link): sorted, filtered and paged over every row by the server */
      if (!kpiOnly) parts.push(r.run_id && r.csv_url ? V.resultTable(r.run_id, r.table) : renderTable(r.table));
    }
    const actions = el("div", { class: "actions" });
    if (r.excel_url) {
      actions.append(el("a", { class: "btn btn-excel", href: r.excel_url, download: V.fileName(r, "xlsx"),
        onclick: (ev) => { if (V.token()) { ev.preventDefault(); V.download(r.excel_url, V.fileName(r, "xlsx")); } } },
      "⬇ " + V.t("turn.excel")));
    }
    if (r.chart_png_url) {
      actions.append(el("a", { class: "btn btn-quiet", href: r.chart_png_url, download: V.fileName(r, "png"),
        onclick: (ev) => { if (V.token()) { ev.preventDefault(); V.download(r.chart_png_url, V.fileName(r, "png")); } } },
      V.t("turn.png")));
    }
    if (r.sql) {
      const copy = el("button", { type: "button", class: "btn btn-quiet", onclick: async () => {
        try { await navigator.clipboard.writeText(r.sql); copy.textContent = V.t("turn.copied"); } catch (err) { copy.textContent = "—"; }
      } }, V.t("turn.copy"));
      actions.append(copy);
    }
    allRowsFiles(actions, r);
    if (actions.childNodes.length) parts.push(actions);
    if (status === "answered" && r.run_id && state.thread) parts.push(renderFeedback(state.thread.id, r.run_id));
    if (status === "answered" && (r.suggestions || []).length) {
      parts.push(el("div", { class: "suggestions", role: "group", "aria-label": V.t("turn.suggest") },
        el("span", { class: "muted small", text: V.t("turn.suggest") + ":" }),
        r.suggestions.map((q) => el("button", { type: "button", class: "chip", onclick: () => send(q) }, q))));
    }
    if (r.sql) parts.push(el("details", { class: "sql" }, el("summary", { text: V.t("turn.sql") }), el("pre", { tabindex: "0" }, el("code", { text: r.sql }))));
    const checks = (r.checks || []).filter((c) => c && (c.message || c.text));
    if (checks.length) {
      parts.push(el("details", { class: "checks" }, el("summary", { text: V.t("turn.checks") + " (" + checks.length + ")" }),
        el("ul", {}, checks.map((c) => el("li", { class: "check-" + (c.check || "info") }, c.message || c.text)))));
    }
    node._body.replaceChildren(...parts.filter(Boolean));
  }

  /* A report of the planner is an answer like any other (renderResult); beside it, the option
     chosen in words, and every option's code and score for the technical details only. */
  function renderReportChoice(report) {
    const options = (report.options || []).map((o) => el("li", { class: o.chosen ? "chosen" : "" },
      o.label + " [" + o.id + "]: " + o.total + (o.chosen ? " ← " + V.t("report.chosen") : (o.valid ? "" : " ✗"))));
    return el("div", { class: "report-choice" },
      report.chosen ? el("p", { class: "muted small", text: report.chosen }) : null,
      options.length ? el("div", { class: "report-options dev" },
        el("p", { class: "small", text: report.options_title || V.t("report.options") }), el("ul", { class: "small" }, options)) : null);
  }

  /* A reply of another role (metadata search, docs, help, report): Markdown rendered by the
     server; a task: its plan, approved here or on the task page. */
  function renderRoute(node, r, live) {
    node.classList.remove("running");
    const status = r.status === "task" ? "task" : (r.status === "failed" ? "failed" : "answered");
    node.classList.add("status-" + status, "routed");
    const head = el("div", { class: "answer-head" },
      el("span", { class: "status status-" + status, text: V.t(status === "task" ? "status.task" : "status." + status) }),
      el("span", { class: "muted small", text: V.t("route.role") + ": " + V.stepName(r.role || r.intent) }));
    const parts = [head];
    if (r.task_id) {
      parts.push(el("p", { class: "answer", text: V.t("route.task") }));
      const box = el("div", { class: "task-inline", "data-task": r.task_id }, el("span", { class: "spinner" }));
      parts.push(box, el("div", { class: "actions" },
        el("a", { class: "btn", href: "/task?id=" + encodeURIComponent(r.task_id), text: V.t("route.open_task") })));
      followTask(box, r.task_id, live);
    } else if (r.answer_html) {
      const doc = el("div", { class: "answer answer-md" });
      doc.innerHTML = r.answer_html; // rendered by the server; raw HTML is escaped there
      V.focusableScroll(doc);
      parts.push(doc);
    } else if (r.answer) {
      parts.push(el("p", { class: "answer", text: r.answer }));
    }
    if (r.details_html) {  /* search steps, plan scores, SQL: under "technical details" only */
      const details = el("div", { class: "route-details dev answer-md" });
      details.innerHTML = r.details_html; // rendered by the server; raw HTML is escaped there
      V.focusableScroll(details);
      parts.push(details);
    }
    node._body.replaceChildren(...parts);
  }

  async function followTask(box, taskId, live) {
    try {
      let task = await V.json("/api/tasks/" + encodeURIComponent(taskId));
      for (let i = 0; i < 20 && (task.running || task.status === "planning" || task.status === "running"); i++) {
        const resp = await V.api("/api/tasks/" + encodeURIComponent(taskId) + "/events", { headers: { Accept: "text/event-stream" } });
        await V.readSse(resp, () => {});
        task = await V.json("/api/tasks/" + encodeURIComponent(taskId));
      }
      const plan = el("ol", { class: "task-plan" }, (task.plan || []).map((s) => el("li", { text: s.title })));
      const parts = [plan];
      if (task.pending && task.pending.kind === "plan" && live) {
        const approve = el("button", { type: "button", class: "btn btn-primary", "data-approve": taskId, onclick: async () => {
          approve.disabled = true;
          try {
            await V.api("/api/tasks/" + encodeURIComponent(taskId) + "/decision", { method: "POST",
              headers: { "Content-Type": "application/json" }, body: JSON.stringify({ action: "approve" }) });
            approve.replaceWith(el("p", { class: "muted", text: V.t("route.approved") }));
          } catch (err) { approve.disabled = false; V.banner(err.message, "error"); }
        } }, V.t("route.approve"));
        parts.push(approve);
      } else {
        parts.push(el("p", { class: "muted small", text: V.t("task.state." + (task.status === "done" ? "finished" : task.status), { n: task.pending && task.pending.step ? task.pending.step.n : "" }) }));
      }
      box.replaceChildren(...parts);
    } catch (err) { box.replaceChildren(el("p", { class: "error", text: err.message })); }
  }

  function renderError(node, message) {
    node.classList.remove("running");
    node.classList.add("status-failed");
    node._body.replaceChildren(el("p", { class: "error", text: message }));
  }

  function renderTurns(turns, opts) {
    const conv = $("conversation");
    const top = conv.scrollTop;
    conv.replaceChildren();
    turns.forEach((turn, i) => {
      const next = turns[i + 1];
      if (turn.status === "clarification" && next && next.chosen) turn._chosen = Object.values(next.chosen)[0];
      const node = turnShell(turn.question || "");
      turnSteps(turn).forEach((s) => addStep(node, s));
      if (turn.kind === "route") renderRoute(node, turn, i === turns.length - 1);
      else renderResult(node, turn, i === turns.length - 1);
      conv.append(node);
    });
    if (state.following && state.following.node) conv.append(state.following.node);  /* a turn in flight stays last */
    if (opts && opts.keepScroll) conv.scrollTop = top;
  }

  /* ---------- dialogs ---------- */
  /* Only the latest openThread (or newDialog) draws: a click on one dialog, then on another
     (or on "new dialog"), must not end on the first when its answer comes last. */
  let opening = 0;
  async function openThread(id, opts) {
    const mine = ++opening;
    stopFollowing();
    let thread;
    try {
      thread = await V.json("/api/threads/" + encodeURIComponent(id));
    } catch (err) {
      if (mine !== opening) return;
      state.thread = null;
      V.banner(err.message, "error");
      location.hash = "";
      newDialog();
      return;
    }
    if (mine !== opening) return;  // a later dialog (or a new one) was opened meanwhile
    state.thread = thread;
    if (!(opts && opts.keepBanner)) V.banner(null);
    renderHeader();
    renderThreads();
    renderTurns(state.thread.turns);
    if (!(opts && opts.keepText)) restoreDraft();
    if (state.thread.live) followLive(state.thread);
    showStart(document.querySelector("#conversation .turn:last-child"));
  }

  /* ---------- a turn in flight: seen after a reload and in every tab (issue 34) ---------- */
  /* The server keeps each turn's events in its store as they happen; a page that did not
     ask (a reload, another tab) replays them from GET /api/threads/ID/live and follows the
     turn to its end, then reads the finished dialog. */
  function stopFollowing() {
    if (state.following) { state.following.abort(); state.following = null; }
  }

  async function followLive(thread) {
    stopFollowing();
    const ctl = new AbortController();
    state.following = ctl;
    const node = turnShell(thread.live.question);
    ctl.node = node;
    node.classList.add("live-followed");
    node._body.append(el("p", { class: "muted small live-note", text: V.t("live.resumed") }));
    $("conversation").append(node);
    let ended = false;
    try {
      const resp = await V.api("/api/threads/" + encodeURIComponent(thread.id) + "/live?after=0",
        { headers: { Accept: "text/event-stream" }, signal: ctl.signal });
      await V.readSse(resp, (ev) => {
        if (ev.type === "step") addStep(node, ev);
        else if (ev.type === "error") { renderError(node, V.errorText(ev, 500)); ended = true; }
        else if (ev.type === "done" || ev.type === "idle") ended = true;
      });
    } catch (err) {
      if (ctl.signal.aborted) return;
      renderError(node, err.message);
      return;
    } finally {
      if (state.following === ctl) state.following = null;
    }
    if (ctl.signal.aborted || !state.thread || state.thread.id !== thread.id) return;
    if (ended && !node.classList.contains("status-failed")) {
      await openThread(thread.id, { keepBanner: true, keepText: true });
      await loadThreads();
    }
  }

  /* Two tabs of one browser: the tab that asks says so in localStorage; the others re-read
     the dialog and follow the turn (a tab elsewhere sees it on its next load or message). */
  function announceTurn(threadId, phase) {
    try { localStorage.setItem("vitrina.turn." + threadId, phase + ":" + Date.now()); } catch (err) { /* storage blocked */ }
  }

  function onStorage(ev) {
    if (!ev.key || !ev.key.startsWith("vitrina.turn.") || !state.thread) return;
    if (ev.key !== "vitrina.turn." + state.thread.id || state.busy) return;
    if (String(ev.newValue || "").startsWith("start") && state.following) return;
    openThread(state.thread.id, { keepBanner: true, keepText: true });
  }

  /* What is typed is kept per dialog (localStorage), so a reload, a refused message or a
     switch to another dialog never loses it. */
  const draftKey = () => "vitrina.draft." + (state.thread ? state.thread.id : "new");
  function saveDraft() {
    try {
      const text = $("question").value;
      if (text.trim()) localStorage.setItem(draftKey(), text.slice(0, 4000)); else localStorage.removeItem(draftKey());
    } catch (err) { /* storage blocked: the text stays in the box */ }
  }
  function restoreDraft() {
    let text = "";
    try { text = localStorage.getItem(draftKey()) || ""; } catch (err) { /* storage blocked */ }
    $("question").value = text;
  }
  function dropDraft(threadId) {
    try { localStorage.removeItem("vitrina.draft." + (threadId || "new")); } catch (err) { /* storage blocked */ }
  }

  function newDialog() {
    opening++;  // a dialog still loading is not drawn over the new one
    stopFollowing();
    state.thread = null;
    state.start = { segment: "auto", topics: [] };
    $("conversation").replaceChildren();
    renderStart();
    renderHeader();
    renderThreads();
    if (location.hash) history.replaceState(null, "", location.pathname);
    restoreDraft();
    $("question").focus();
  }

  /* Bring a turn's start (its question, then the answer's first line) to the top of the view:
     a long answer is read from its beginning, never scrolled past. */
  function showStart(node) {
    if (!node) return;
    const conv = $("conversation");
    conv.scrollTop = Math.max(0, node.offsetTop - conv.offsetTop - 8);
  }

  async function send(text, opts) {
    text = (text || "").trim();
    if (!text || state.busy) return;
    if (state.following) {  /* this dialog answers a question asked elsewhere: say so, keep the text */
      if (!(opts && opts.fromOption)) V.banner(V.t("live.busy"), "warn");
      return;
    }
    state.busy = true;
    const typed = $("question").value;
    let accepted = false;
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
      // an option's reply continues the clarified question: the turn shows that question, not "Кошельки"
      const asked = opts && opts.fromOption ? state.thread.turns[state.thread.turns.length - 1] : null;
      const node = turnShell(asked && asked.question ? asked.question : text);
      $("conversation").append(node);
      showStart(node);
      let resp;
      try {
        resp = await V.api("/api/threads/" + state.thread.id + "/messages", {
          method: "POST", headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
          body: JSON.stringify({ text }),
        });
      } catch (err) {
        if (err.status !== 409) throw err;
        /* the dialog answers another question (another tab, before a reload): say so in
           words, keep the text, and show that turn as it runs */
        node.remove();
        V.banner(V.t("live.busy"), "warn");
        state.busy = false;
        await openThread(state.thread.id, { keepBanner: true, keepText: true });
        return;
      }
      accepted = true;
      if (typed.trim() === text) {  /* sent from the box: the box and its draft are done */
        if ($("question").value === typed) $("question").value = "";
        dropDraft(state.thread.id);
        dropDraft(null);
      }
      announceTurn(state.thread.id, "start");
      await V.readSse(resp, (ev) => {
        if (ev.type === "step") { addStep(node, ev); }
        else if (ev.type === "result") {
          state.thread.turns.push(ev.result.steps ? ev.result : Object.assign({ steps: node._timings || [] }, ev.result));
          if (!state.thread.title) state.thread.title = ev.result.question;
          if (ev.result.kind === "route") renderRoute(node, ev.result, true);
          else renderResult(node, ev.result, true);
          showStart(node);
        } else if (ev.type === "error") { renderError(node, V.errorText(ev, 500)); }
      });
      if (node.classList.contains("running")) renderError(node, V.t("error.network"));
      announceTurn(state.thread.id, "done");
      await loadThreads();
      renderHeader();
    } catch (err) {
      const last = $("conversation").lastElementChild;
      if (last && last.classList.contains("running")) renderError(last, err.message); else V.banner(err.message, "error");
      if (!accepted && !$("question").value.trim()) $("question").value = typed;
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
    $("new-thread").addEventListener("click", () => { newDialog(); closeDrawer(); });
    $("thread-search").addEventListener("input", renderThreads);
    $("question").addEventListener("input", saveDraft);
    window.addEventListener("storage", onStorage);
    applyDetails();
    window.addEventListener("hashchange", route);
    V.onLangChange.push(() => { renderStart(); renderHeader(); renderThreads(); if (state.thread && state.thread.turns.length) renderTurns(state.thread.turns); });
    try {
      [state.topics, state.catalogStart] = await Promise.all([V.json("/api/catalog/topics"), V.json("/api/catalog/start"), loadThreads()]);
    } catch (err) { V.banner(err.message, "error"); }
    renderStart();
    renderHeader();
    if (location.hash) route(); else { restoreDraft(); $("question").focus(); }
    document.body.dataset.ready = "1";
  }

  main();
})();
