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
    await actionsPanel(data.task);
  }

  /* ---- People's actions (issue 31 item 5): the buttons this token's role may use on this
     task, asked of the server (a viewer gets none); the same People class as the CLI acts.
     Strings live here, not in i18n.js, to keep this panel one section of its own. ---- */
  const ACT = {
    ru: { title: "Действия", text: "Текст (комментарий, ответ; причины отказа — по одной в строке)", to: "Передать роли",
      comment: "Комментировать", answer: "Ответить на блокер", approve: "Принять", reject: "Вернуть на доработку",
      reassign: "Передать", readonly: "Токен только читает доску.", done: "Сделано", same: "Уже сделано, ничего не изменилось",
      woke: "Сборка снова в работе: запустите `vitrina build БРИФ`", republish: "Опубликовать заново" },
    en: { title: "Actions", text: "Text (a comment, an answer; a rejection's reasons, one a line)", to: "Give to role",
      comment: "Comment", answer: "Answer the blocker", approve: "Approve", reject: "Send back for rework",
      reassign: "Reassign", readonly: "This token reads the board only.", done: "Done", same: "Already done, nothing changed",
      woke: "The build woke: run `vitrina build BRIEF` to go on", republish: "Publish again" },
  };
  const at = (key) => (ACT[V.lang] || ACT.en)[key];

  async function actionsPanel(task) {
    const allowed = await V.json("/api/board/tasks/" + task.id + "/actions");
    if (shown.task !== task.id) return;  // another task was opened meanwhile
    $("task").querySelectorAll(".board-actions").forEach((old) => old.remove());
    const box = el("section", { class: "board-actions", "aria-labelledby": "actions-title" }, el("h3", { id: "actions-title", text: at("title") }));
    $("task").append(box);
    if (!allowed.actions.length) { box.append(el("p", { class: "muted", text: at("readonly") })); return; }
    const result = el("p", { id: "action-result", role: "status" });
    const text = el("textarea", { id: "action-text", rows: "3" });
    box.append(el("label", { for: "action-text", text: at("text") }), text);
    let to = null;
    if (allowed.reassign_to.length) {
      to = el("select", { id: "action-to" }, allowed.reassign_to.map((r) => el("option", { value: r, text: r })));
      box.append(el("label", { for: "action-to", text: at("to") }), to);
    }
    box.append(el("div", { class: "action-buttons" }, allowed.actions.map((name) => el("button", {
      type: "button", "data-action": name, text: at(name),
      onclick: () => act(task.id, name, text.value, to ? to.value : "", result),
    }))), result);
  }

  /* A finished build's "Publish again" (issue 31 item 4): a lead's button, in place. */
  let me = null;
  async function buildActions(build) {
    me = me || await V.json("/api/board/me");
    let box = $("build-actions");
    if (!box) {
      box = el("div", { id: "build-actions", class: "board-build-actions" });
      document.querySelector(".board-pick").after(box);
    }
    box.replaceChildren();
    if (!me.republish || build.status !== "done") return;
    const result = el("span", { id: "republish-result", role: "status" });
    box.append(el("button", { type: "button", "data-action": "republish", text: at("republish"), onclick: async () => {
      try {
        const out = await V.json("/api/board/builds/" + build.id + "/republish", { method: "POST" });
        result.textContent = at("done") + ": v" + out.version;
        document.body.dataset.acted = "republish";
      } catch (err) { result.textContent = String(err.message || err); result.classList.add("error"); }
    } }), " ", result);
  }

  async function act(id, action, text, to, result) {
    try {
      const out = await V.json("/api/board/tasks/" + id + "/actions", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ action, text, to }),
      });
      const said = (out.changed ? at("done") : at("same")) + (out.woke ? ". " + at("woke") : "");
      if (shown.build !== null) await showBuild(shown.build);
      await showTask(id);
      const line = $("action-result");
      if (line) line.textContent = said;
      document.body.dataset.acted = action;
    } catch (err) {
      result.textContent = String(err.message || err);
      result.classList.add("error");
    }
  }

  async function showBuild(id) {
    const data = await V.json("/api/board/builds/" + id);
    shown = { build: id, task: null };
    $("task").hidden = true;
    $("columns").replaceChildren(...COLUMNS.map((name) => el("div", { class: "board-column", "data-status": name },
      el("h2", { text: V.t("board.status." + name) }),
      (data.columns[name] || []).map((t) => card(t.id, "#" + t.id + " " + t.step + " · " + t.role + " · r" + t.round,
        t.reviews.length ? el("span", { class: "reviews" }, t.reviews.map((r) => el("span", { class: "review", text: r.role + ": " + (r.verdict ? word("verdict", r.verdict) : V.t("board.status." + r.status)) }))) : null)))));
    await buildActions(data.build);
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
