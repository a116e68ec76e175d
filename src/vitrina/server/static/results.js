/* The table of an answer over its WHOLE result: sorting, filtering, paging and totals come
   from the server (GET /api/runs/ID/rows, the run's stored rows), so "sort by amount" shows
   the true top day of 365, never the top of the 20 rows on screen (issue 34). The caption
   says which rows are shown, in which order, under which filter; "copy as TSV" copies the
   filtered, sorted rows; the downloads (in the answer's actions) hold every row. */
(function () {
  "use strict";
  const V = window.Vitrina;
  const el = V.el;
  const PAGE = 20;
  let seq = 0;

  function rowsUrl(runId, view, tsv) {
    const p = new URLSearchParams();
    if (view.sort) { p.set("sort", view.sort); p.set("desc", String(view.desc)); }
    if (view.q) { p.set("q", view.q); if (view.column) p.set("column", view.column); }
    if (!tsv) { p.set("offset", String(view.offset)); p.set("limit", String(PAGE)); }
    p.set("lang", V.lang);
    return "/api/runs/" + encodeURIComponent(runId) + "/rows" + (tsv ? ".tsv" : "") + "?" + p;
  }

  const count = (n) => new Intl.NumberFormat(V.lang === "ru" ? "ru-RU" : "en-US").format(n);

  /* "Строки 21–40 из 365, по убыванию «Сумма»"; with a filter, how many rows match. */
  function caption(page, labelOf) {
    const f = page.filter;
    if (!page.matched) return f ? V.t("rows.none", { q: f.text, total: count(page.total_rows) }) : V.t("table.all", { total: 0 });
    const from = page.offset + 1, to = page.offset + page.rows.length;
    let text = page.matched === page.total_rows
      ? (from === 1 && to === page.matched ? V.t("rows.all", { total: count(page.matched) })
        : V.t("rows.range", { from: count(from), to: count(to), total: count(page.matched) }))
      : V.t("rows.filtered", { from: count(from), to: count(to), matched: count(page.matched), total: count(page.total_rows), q: f.text });
    if (page.sort) text += V.t(page.sort.desc ? "rows.desc" : "rows.asc", { col: labelOf(page.sort.column) });
    return text;
  }

  /* The table of one answer; `table` is the preview the answer came with (shown at once,
     replaced by the server's first page with its totals when that arrives). */
  V.resultTable = function (runId, table) {
    if (!table || !table.columns || !table.columns.length) return null;
    const id = "rt" + (++seq);
    const view = { sort: null, desc: false, column: "", q: "", offset: 0 };
    let page = null;
    let loading = null;
    const numeric = table.numeric || [];
    const note = el("span", { class: "table-note", id: id + "-caption", role: "status", text: "" });
    const extra = table.note ? el("span", { class: "muted small table-extra" }) : null;
    const thead = el("thead");
    const tbody = el("tbody");
    const tfoot = el("tfoot");
    const columnPick = el("select", { class: "rows-column", "aria-label": V.t("rows.column") });
    const search = el("input", { type: "search", class: "rows-filter", maxlength: "200", placeholder: V.t("rows.filter_ph"), "aria-label": V.t("rows.filter") });
    const prev = el("button", { type: "button", class: "btn btn-small rows-prev", disabled: true, onclick: () => go(view.offset - PAGE) }, "← " + V.t("rows.prev"));
    const next = el("button", { type: "button", class: "btn btn-small rows-next", disabled: true, onclick: () => go(view.offset + PAGE) }, V.t("rows.next") + " →");
    const copyStatus = el("span", { class: "muted small rows-copied", role: "status" });
    const copy = el("button", { type: "button", class: "btn btn-small rows-copy", onclick: () => copyTsv() }, V.t("rows.copy"));
    const tableNode = el("table", { class: "result", "aria-describedby": id + "-caption" }, thead, tbody, tfoot);
    const tools = el("div", { class: "rows-tools", role: "group", "aria-label": V.t("rows.tools") },
      el("div", { class: "rows-filter-box" }, columnPick, search), copy, copyStatus);
    const pager = el("div", { class: "rows-pager" }, prev, next);
    const wrap = el("div", { class: "table-wrap", "data-run": runId },
      tools,
      el("div", { class: "table-caption" }, note, extra),
      el("div", { class: "table-scroll", tabindex: "0" }, tableNode),
      pager);

    function drawHead(labels, names) {
      thead.replaceChildren(el("tr", {}, labels.map((label, i) => {
        const name = names ? names[i] : null;
        const sorted = page && page.sort && page.sort.column === name;
        return el("th", { class: numeric[i] ? "num" : "", scope: "col",
          "aria-sort": sorted ? (page.sort.desc ? "descending" : "ascending") : "none" },
        el("button", { type: "button", class: "sort-button", title: V.t("turn.sort"), "data-col": String(i),
          onclick: () => sortBy(i) }, label, el("span", { class: "sort-mark", "aria-hidden": "true" })));
      })));
    }

    function drawRows(rows) {
      tbody.replaceChildren(...rows.map((r) => el("tr", {}, r.map((v, i) =>
        el("td", { class: numeric[i] ? "num" : "" }, v === null ? "—" : String(v))))));
    }

    function drawTotals() {
      tfoot.replaceChildren();
      if (!page || !page.totals || !page.matched) return;
      const label = V.t(page.matched === page.total_rows ? "rows.total_all" : "rows.total_matched", { n: count(page.matched) });
      const cells = page.totals.map((v, i) => el(i === 0 && v === null ? "th" : "td",
        { class: "total" + (numeric[i] ? " num" : ""), scope: i === 0 && v === null ? "row" : null },
        v === null ? (i === 0 ? label : "") : v));
      if (page.totals[0] !== null) cells[0].prepend(el("span", { class: "visually-hidden", text: label + ": " }));
      tfoot.append(el("tr", { class: "totals" }, cells));
    }

    function draw() {
      const labels = page.columns.map((c) => c.label);
      const names = page.columns.map((c) => c.name);
      page.columns.forEach((c, i) => { numeric[i] = c.numeric; });
      drawHead(labels, names);
      drawRows(page.rows);
      drawTotals();
      const labelOf = (name) => (page.columns.find((c) => c.name === name) || { label: name }).label;
      note.textContent = caption(page, labelOf);
      if (extra) extra.textContent = table.note && /обрез|cut/.test(table.note) ? " · " + table.note : "";
      prev.disabled = page.offset <= 0;
      next.disabled = page.offset + page.rows.length >= page.matched;
      pager.hidden = page.matched <= PAGE;
      if (columnPick.options.length !== page.columns.length + 1) {
        columnPick.replaceChildren(el("option", { value: "" }, V.t("rows.any")),
          ...page.columns.map((c) => el("option", { value: c.name }, c.label)));
        columnPick.value = view.column;
      }
    }

    async function load() {
      const mine = (loading = rowsUrl(runId, view, false));
      wrap.setAttribute("aria-busy", "true");
      try {
        const got = await V.json(mine);
        if (loading !== mine) return;  // a later request won
        page = got;
        draw();
      } catch (err) {
        if (loading === mine) note.textContent = err.message;
      } finally {
        if (loading === mine) wrap.removeAttribute("aria-busy");
      }
    }

    function go(offset) { view.offset = Math.max(0, offset); load(); }

    async function sortBy(i) {
      if (!page) await load();
      if (!page) return;
      const name = page.columns[i].name;
      if (view.sort === name) view.desc = !view.desc;
      else { view.sort = name; view.desc = Boolean(page.columns[i].numeric); }
      view.offset = 0;
      await load();
      const button = thead.querySelector("[data-col='" + i + "']");
      if (button) button.focus();
    }

    let timer = null;
    const refilter = () => {
      clearTimeout(timer);
      timer = setTimeout(() => { view.q = search.value.trim(); view.column = columnPick.value; view.offset = 0; load(); }, 250);
    };
    search.addEventListener("input", refilter);
    columnPick.addEventListener("change", () => { if (search.value.trim()) refilter(); else view.column = columnPick.value; });

    async function copyTsv() {
      copyStatus.textContent = "";
      try {
        const resp = await V.api(rowsUrl(runId, view, true), { headers: { Accept: "text/tab-separated-values" } });
        const text = await resp.text();
        const n = Number(resp.headers.get("X-Vitrina-Rows") || 0);
        await navigator.clipboard.writeText(text);
        const all = page ? page.matched : n;
        copyStatus.textContent = n < all ? V.t("rows.copied_cut", { n: count(n), total: count(all) }) : V.t("rows.copied", { n: count(n) });
      } catch (err) { copyStatus.textContent = V.t("rows.copy_failed") + ": " + (err.message || err); }
    }

    /* the preview at once, then the server's first page with its totals */
    drawHead(table.columns, null);
    drawRows(table.rows || []);
    const shown = table.shown ?? (table.rows || []).length;
    const total = table.total ?? shown;
    note.textContent = total > shown ? V.t("table.shown", { shown, total }) : V.t("table.all", { total });
    if (extra) extra.textContent = /обрез|cut/.test(table.note) ? " · " + table.note : "";
    columnPick.append(el("option", { value: "" }, V.t("rows.any")));
    /* the first page (names, totals) when the table comes into view: a long dialog does not
       ask for the pages of every answer at once */
    if (typeof IntersectionObserver === "function") {
      const seen = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { seen.disconnect(); if (!page && !loading) load(); }
      }, { rootMargin: "200px" });
      seen.observe(wrap);
    } else load();
    return wrap;
  };
})();
