// The task page: start a task, approve or edit its plan, approve each step, watch live output (SSE).
"use strict";
const T = {
  ru: {title: "Аналитическая задача", placeholder: "Например: сравни открытия кошельков за 3 квартал с прошлым годом по регионам, найди где падение и сделай прогноз на следующий квартал",
       auto: "Автономно (шаги оценивает агент)", start: "Начать", step: "Шаг", tool: "Инструмент", status: "Статус",
       editHelp: "Шаги, по одному в строке:", save: "Сохранить план", approve: "Одобрить", edit: "Изменить",
       replan: "Перепланировать", redo: "Повторить", skip: "Пропустить", stop: "Остановить", comment: "Комментарий:",
       pending: "не начат", in_progress: "выполняется", done: "выполнен", skipped: "пропущен",
       awaiting_plan: "Ждёт согласования плана", awaiting_step: "Ждёт решения по шагу", running: "Выполняется…",
       planning: "Планирование…", stopped: "Остановлена", failed: "Остановлена по лимиту", finished: "Готово", files: "Файлы"},
  en: {title: "Analytical task", placeholder: "E.g.: compare wallet openings in Q3 with last year by region, find where it fell and forecast next quarter",
       auto: "Autonomous (an agent judges steps)", start: "Start", step: "Step", tool: "Tool", status: "Status",
       editHelp: "Steps, one per line:", save: "Save plan", approve: "Approve", edit: "Edit", replan: "Replan",
       redo: "Redo", skip: "Skip", stop: "Stop", comment: "Comment:", pending: "pending", in_progress: "running",
       done: "done", skipped: "skipped", awaiting_plan: "Waiting for plan approval", awaiting_step: "Waiting for a step decision",
       running: "Running…", planning: "Planning…", stopped: "Stopped", failed: "Stopped by a limit", finished: "Done", files: "Files"},
};
let lang = localStorage.getItem("vitrina.lang") || (navigator.language || "ru").slice(0, 2);
if (!T[lang]) lang = "ru";
let taskId = new URLSearchParams(location.search).get("id");
let cursor = 0;
const $ = (id) => document.getElementById(id);
const t = (k) => T[lang][k] || k;

function translate() {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-t]").forEach((el) => { el.textContent = t(el.dataset.t); });
  $("request").placeholder = t("placeholder");
  $("lang").textContent = lang === "ru" ? "EN" : "RU";
}

async function api(path, body) {
  const res = await fetch(path, body ? {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)} : {});
  if (!res.ok) throw new Error((await res.json()).detail || res.statusText);
  return res.json();
}

function render(task) {
  $("task").hidden = false;
  const status = task.status === "done" ? "finished" : task.status;
  $("status").textContent = `${task.task_id} · ${t(status)}`;
  const body = $("plan").querySelector("tbody");
  body.replaceChildren(...task.plan.map((s) => {
    const tr = document.createElement("tr");
    tr.className = s.status;
    for (const v of [s.n, s.title, s.tool || "", t(s.status)]) { const td = document.createElement("td"); td.textContent = v; tr.append(td); }
    return tr;
  }));
  const actions = $("actions");
  actions.replaceChildren();
  $("edit").hidden = true;
  const pending = task.pending;
  if (pending) {
    for (const option of pending.options) {
      const b = document.createElement("button");
      b.textContent = t(option);
      if (option === "approve") b.className = "primary";
      b.onclick = () => act(option, task);
      actions.append(b);
    }
  }
  const current = $("current");
  current.replaceChildren();
  if (pending && pending.kind === "step") {
    const s = pending.step;
    const h = document.createElement("h3"); h.textContent = `${t("step")} ${s.n}. ${s.title}`; current.append(h);
    if (s.report) { const p = document.createElement("p"); p.textContent = s.report; current.append(p); }
    if (s.error) { const p = document.createElement("p"); p.className = "error"; p.textContent = s.error; current.append(p); }
    if (pending.notice) { const p = document.createElement("p"); p.className = "notice"; p.textContent = pending.notice; current.append(p); }
    for (const o of s.outputs) {
      if (!o.columns.length) continue;
      const table = document.createElement("table"); table.className = "preview";
      const head = document.createElement("tr");
      o.columns.forEach((c) => { const th = document.createElement("th"); th.textContent = c; head.append(th); });
      table.append(head);
      o.preview.forEach((row) => { const tr = document.createElement("tr"); row.forEach((v) => { const td = document.createElement("td"); td.textContent = v ?? ""; tr.append(td); }); table.append(tr); });
      current.append(table);
    }
  }
  $("summary").textContent = task.summary || "";
}

async function act(action, task) {
  const body = {action};
  if (action === "edit") {
    $("edit").hidden = false;
    $("steps").value = task.plan.map((s) => s.title).join("\n");
    $("saveSteps").onclick = () => send({action: "edit", steps: $("steps").value.split("\n").map((x) => x.trim()).filter(Boolean)});
    return;
  }
  if (action === "replan" || action === "redo") body.comment = prompt(t("comment")) || "";
  await send(body);
}

async function send(body) {
  try { await api(`/api/tasks/${taskId}/decision`, body); } catch (e) { alert(e.message); return; }
  $("actions").replaceChildren();
  follow();
}

function follow() {
  const source = new EventSource(`/api/tasks/${taskId}/events?after=${cursor}`);
  const log = $("log");
  const onEvent = (msg) => {
    cursor = Number(msg.lastEventId) + 1;
    const e = JSON.parse(msg.data);
    const step = e.step ? ` · ${e.step.n}. ${e.step.title}${e.step.error ? " ✗" : ""}` : "";
    log.textContent += `${e.node}${step}\n`;
    log.scrollTop = log.scrollHeight;
    if (e.node === "idle" || e.node === "error") { source.close(); refresh(); }
  };
  for (const name of ["planner", "approve_plan", "inject_step", "execute", "approve_step", "evaluate", "compress", "finalize", "idle", "error"]) {
    source.addEventListener(name, onEvent);
  }
  source.onerror = () => { source.close(); refresh(); };
}

async function refresh() { render(await api(`/api/tasks/${taskId}`)); }

$("start").onsubmit = async (ev) => {
  ev.preventDefault();
  const res = await api("/api/tasks", {request: $("request").value, mode: $("auto").checked ? "auto" : "semi"});
  taskId = res.task_id; cursor = 0;
  history.replaceState(null, "", `?id=${taskId}`);
  $("log").textContent = "";
  follow();
};
$("lang").onclick = () => { lang = lang === "ru" ? "en" : "ru"; localStorage.setItem("vitrina.lang", lang); translate(); if (taskId) refresh(); };
translate();
if (taskId) refresh();
