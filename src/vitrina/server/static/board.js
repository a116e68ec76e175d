/* The build board: builds, work tasks in columns by status, a task's page. Calls go through
   the shared API helper (the token, its dialog on a 401); every text goes in through
   textContent. */
(function () {
  "use strict";
  const V = window.Vitrina;
  const el = V.el;
  const $ = (id) => document.getElementById(id);
  const COLUMNS = ["new", "in_progress", "review", "rework", "blocked", "done"];
  let shown = { build: null, task: null };

  async function image(url) {
    try { return URL.createObjectURL(await (await V.api(url)).blob()); } catch (err) { return null; }
  }
  function fail(error) {
    const box = $("board-error");
    box.textContent = String(error.message || error);
    box.hidden = false;
  }
  /* Cards are buttons: reachable by Tab, opened by Enter or Space. */
  function card(id, text, extra) {
    return el("button", { type: "button", class: "board-card", "data-task": String(id), onclick: () => showTask(id).catch(fail) },
      el("span", { class: "board-card-title", text }), extra || null);
  }

  /* A word for a protocol code (verdicts, hand-off statuses) in the page's language; an
     unknown code is shown as written. */
  const word = (group, code) => ((V.t("board." + group) || {})[code] || code);

  /* The parsed ===VERDICT=== and ===HANDOFF=== blocks as labelled fields, not raw blocks. */
  function fields(c) {
    const rows = [];
    const add = (key, value) => { if (value) rows.push(el("dt", { text: V.t("board.field." + key) }), el("dd", {}, value)); };
    if (c.verdict) {
      add("verdict", word("verdict", c.verdict.verdict));
      if (c.verdict.amendments.length) add("amendments", el("ul", {}, c.verdict.amendments.map((a) => el("li", { text: a }))));
    }
    if (c.handoff) {
      add("status", word("handoff", c.handoff.status));
      add("reviewers", (c.handoff.reviewers_requested || []).join(", "));
      add("next", c.handoff.next);
      add("next_phase", c.handoff.next_phase);
    }
    return rows.length ? el("dl", { class: "board-fields" }, rows) : null;
  }

  async function showTask(id) {
    const data = await V.json("/api/board/tasks/" + id);
    shown.task = id;
    const box = $("task");
    box.replaceChildren(el("h2", { text: "#" + data.task.id + " " + data.task.title + " · " + V.t("board.status." + data.task.status) }));
    for (const c of data.comments) {
      const body = c.body === undefined ? c.text : c.body;
      box.append(el("div", { class: "board-comment", "data-comment": String(c.id) },
        el("strong", { text: c.author + " · " + V.t("board.round", { n: c.round }) }),
        body ? el("p", { class: "board-body", text: body }) : null,
        fields(c),
        el("details", { class: "board-raw" }, el("summary", { text: V.t("board.raw") }), el("pre", { tabindex: "0", text: c.text }))));
    }
    if (data.children.length) {
      box.append(el("h3", { text: V.t("board.children") }));
      for (const t of data.children) box.append(card(t.id, "#" + t.id + " " + t.kind + " · " + t.role + " · " + V.t("board.status." + t.status)));
    }
    for (const a of data.attachments) {
      const src = await image(a.url);
      if (src) box.append(el("figure", {}, el("img", { src, alt: a.name }), el("figcaption", { text: a.name })));
    }
    if (data.diff) box.append(el("h3", { text: V.t("board.diff") }), el("pre", { class: "diff", tabindex: "0", text: data.diff }));
    box.hidden = false;
  }

  async function showBuild(id) {
    const data = await V.json("/api/board/builds/" + id);
    shown = { build: id, task: null };
    $("task").hidden = true;
    $("columns").replaceChildren(...COLUMNS.map((name) => el("div", { class: "board-column", "data-status": name },
      el("h2", { text: V.t("board.status." + name) }),
      (data.columns[name] || []).map((t) => card(t.id, "#" + t.id + " " + t.step + " · " + t.role + " · r" + t.round,
        t.reviews.length ? el("span", { class: "reviews" }, t.reviews.map((r) => el("span", { class: "review", text: r.role + ": " + (r.verdict ? word("verdict", r.verdict) : V.t("board.status." + r.status)) }))) : null)))));
  }

  async function main() {
    await V.start([]);
    V.onLangChange.push(() => {
      if (shown.build !== null) showBuild(shown.build).then(() => shown.task !== null && showTask(shown.task)).catch(fail);
    });
    try {
      const data = await V.json("/api/board/builds");
      const select = $("build-select");
      select.replaceChildren(...data.builds.map((b) => el("option", { value: String(b.id), text: "#" + b.id + " " + b.title + " · " + word("build_state", b.status) })));
      select.onchange = () => showBuild(select.value).catch(fail);
      $("board-empty").hidden = data.builds.length > 0;
      select.parentElement.hidden = !data.builds.length;
      if (data.builds.length) await showBuild(data.builds[0].id);
    } catch (err) { fail(err); }
    document.body.dataset.ready = "1";
  }

  main();
})();
