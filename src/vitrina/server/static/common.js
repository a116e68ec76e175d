/* Shared by both pages: language, API calls with the token, the token dialog, script loading. */
(function () {
  "use strict";
  const I18N = window.VITRINA_I18N;
  const V = (window.Vitrina = {});

  V.lang = localStorage.getItem("vitrina.lang") ||
    ((navigator.languages || [navigator.language || "en"]).some((l) => String(l).toLowerCase().startsWith("ru")) ? "ru" : "en");

  V.t = function (key, vars) {
    let text = (I18N[V.lang] && I18N[V.lang][key]) ?? I18N.en[key] ?? key;
    if (vars && typeof text === "string") {
      for (const [k, v] of Object.entries(vars)) text = text.replaceAll("{" + k + "}", String(v));
    }
    return text;
  };
  /* A step's user-facing label; a step without one is "Step" (its node name only under details). */
  V.stepName = (step) => (I18N[V.lang].steps || {})[step] || (V.details() ? step : V.t("step.other"));
  V.details = () => localStorage.getItem("vitrina.details") === "1";

  V.applyI18n = function (root) {
    document.documentElement.lang = V.lang;
    (root || document).querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = V.t(el.dataset.i18n); });
    (root || document).querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = V.t(el.dataset.i18nPlaceholder); });
    (root || document).querySelectorAll("[data-i18n-label]").forEach((el) => { el.setAttribute("aria-label", V.t(el.dataset.i18nLabel)); });
    document.querySelectorAll(".lang-switch button").forEach((b) => b.classList.toggle("active", b.dataset.lang === V.lang));
  };

  V.onLangChange = [];
  V.setLang = function (lang) {
    V.lang = lang;
    localStorage.setItem("vitrina.lang", lang);
    V.applyI18n();
    V.onLangChange.forEach((fn) => fn());
  };

  V.el = function (tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  };

  /* One line over the page (never over the controls: the layout shrinks); closable. An
     optional action is a button inside it, e.g. "enter the token". */
  V.banner = function (text, kind, action) {
    const b = document.getElementById("banner");
    if (!b) return;
    if (!text) { b.hidden = true; b.replaceChildren(); delete b.dataset.auth; return; }
    if (!action && b.dataset.auth === "1" && !b.hidden) return; // "enter the token" stays until it is done
    b.replaceChildren(...[  /* replaceChildren writes a null as the text "null" */
      V.el("span", { class: "banner-text", text }),
      action ? V.el("button", { type: "button", class: "btn btn-small banner-action", onclick: action.run }, action.label) : null,
      V.el("button", { type: "button", class: "banner-close", "aria-label": V.t("banner.close"), title: V.t("banner.close"),
        onclick: () => V.banner(null) }, "×")].filter(Boolean));
    b.className = "banner " + (kind || "warn");
    b.setAttribute("role", kind === "error" ? "alert" : "status");
    b.hidden = false;
  };

  /* The API token lives in sessionStorage: it goes when the tab closes, and no other tab, no
     later visit and nothing the page keeps for good can read it (docs/decisions/149). A token
     an older version kept in localStorage is moved here once and deleted there. */
  const TOKEN_KEY = "vitrina.token";
  try {
    const old = localStorage.getItem(TOKEN_KEY);
    if (old !== null) {
      localStorage.removeItem(TOKEN_KEY);
      if (old && !sessionStorage.getItem(TOKEN_KEY)) sessionStorage.setItem(TOKEN_KEY, old);
    }
  } catch (err) { /* storage blocked by the browser: nothing to move */ }
  V.token = () => sessionStorage.getItem(TOKEN_KEY) || "";
  V.headers = function (extra) {
    const h = Object.assign({}, extra || {});
    if (V.token()) h.Authorization = "Bearer " + V.token();
    return h;
  };

  /* The token dialog. Resolves true when a token was saved, false on Escape / Cancel. One
     dialog at a time: concurrent 401s wait on the same answer. `reason` is shown in red
     (e.g. "the token is unknown or revoked") so a wrong token never reopens silently. */
  function tokenDialog() {
    let dialog = document.getElementById("token-dialog");
    if (dialog) return dialog;
    const el = V.el;
    dialog = el("dialog", { id: "token-dialog", class: "token-dialog", "aria-labelledby": "token-title" },
      el("form", { method: "dialog", id: "token-form" },
        el("h2", { id: "token-title", text: V.t("token.title") }),
        el("p", { class: "muted", text: V.t("token.help") }),
        el("p", { id: "token-error", class: "error", role: "alert", hidden: true }),
        el("label", { for: "token-input", class: "visually-hidden", text: V.t("token.title") }),
        el("input", { id: "token-input", type: "password", autocomplete: "off", spellcheck: "false", placeholder: "vt_…" }),
        el("div", { class: "dialog-actions" },
          el("button", { type: "submit", value: "cancel", class: "btn", formnovalidate: true, text: V.t("token.cancel") }),
          el("button", { type: "submit", value: "save", class: "btn btn-primary", text: V.t("token.save") }))));
    document.body.append(dialog);
    return dialog;
  }

  let asking = null;
  V.tokenDeclined = false;
  V.askToken = function (reason) {
    if (asking) return asking;
    asking = new Promise((resolve) => {
      const dialog = tokenDialog();
      const input = document.getElementById("token-input");
      const error = document.getElementById("token-error");
      input.value = "";
      if (error) { error.textContent = reason || ""; error.hidden = !reason; }
      let saved = false;
      const form = document.getElementById("token-form");
      const onSubmit = (ev) => {
        if (ev.submitter && ev.submitter.value === "cancel") return;
        if (!input.value.trim()) { ev.preventDefault(); input.focus(); return; }
        sessionStorage.setItem(TOKEN_KEY, input.value.trim());
        saved = true;
      };
      form.addEventListener("submit", onSubmit);
      dialog.addEventListener("close", () => {
        form.removeEventListener("submit", onSubmit);
        asking = null;
        V.tokenDeclined = !saved;
        if (!saved) V.needToken();
        else V.banner(null);
        resolve(saved);
      }, { once: true });
      dialog.showModal();
      input.focus();
    });
    return asking;
  };

  /* Without a token the page stays usable: a banner says why nothing loads and reopens the dialog. */
  V.needToken = function (reason) {
    V.banner(reason || V.t("token.needed"), "error", { label: V.t("token.enter"), run: async () => {
      if (await V.askToken()) location.reload();
    } });
    document.getElementById("banner").dataset.auth = "1";
  };

  V.errorText = function (body, status) {
    const e = body && body.error;
    if (!e) return V.t("error.generic") + " " + status;
    return (V.lang === "ru" ? e.message_ru || e.message : e.message) + " (" + e.code + ")";
  };

  /* fetch + JSON. A 401 asks for the token (saying why when one was sent) and retries once;
     declined, it fails with the server's auth message, never as "server unreachable". */
  V.api = async function (path, options, retried) {
    const opts = Object.assign({}, options || {});
    opts.headers = V.headers(Object.assign({ Accept: "application/json" }, opts.headers || {}));
    let resp;
    try { resp = await fetch(path, opts); } catch (err) {
      const error = new Error(V.t("error.network"));
      error.status = 0;
      throw error;
    }
    if (!resp.ok) {
      let body = null;
      try { body = await resp.clone().json(); } catch (err) { /* not JSON */ }
      if (resp.status === 401) {
        const message = V.errorText(body, resp.status);
        if (!retried && !V.tokenDeclined) {
          const reason = V.token() ? V.t("token.rejected") + ": " + message : null;
          if (await V.askToken(reason)) return V.api(path, options, true);
        }
        const error = new Error(V.t("token.needed"));
        error.status = 401;
        V.needToken(V.token() ? V.t("token.rejected") + ": " + message : null);
        throw error;
      }
      const error = new Error(V.errorText(body, resp.status));
      error.status = resp.status;
      throw error;
    }
    return resp;
  };
  V.json = async (path, options) => (await V.api(path, options)).json();

  /* Code blocks scroll sideways on a phone: each takes keyboard focus so arrow keys scroll it. */
  V.focusableScroll = function (root) {
    root.querySelectorAll("pre:not(.mermaid), .table-scroll").forEach((node) => { node.tabIndex = 0; });
  };

  V.loadScript = function (src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src; s.onload = resolve; s.onerror = () => reject(new Error("cannot load " + src));
      document.head.append(s);
    });
  };

  /* Below 768 px the sidebar is a drawer behind the menu button. */
  V.closeDrawer = function () {
    document.body.classList.remove("drawer-open");
    const b = document.getElementById("menu-button");
    if (b) b.setAttribute("aria-expanded", "false");
  };
  function wireDrawer() {
    const button = document.getElementById("menu-button");
    if (!button) return;
    button.addEventListener("click", () => button.setAttribute("aria-expanded", String(document.body.classList.toggle("drawer-open"))));
    const shade = document.getElementById("drawer-shade");
    if (shade) shade.addEventListener("click", V.closeDrawer);
    document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && document.body.classList.contains("drawer-open")) V.closeDrawer(); });
  }

  /* /api/info: auth mode and which vendor libraries the server has. */
  V.start = async function (needed) {
    V.applyI18n();
    wireDrawer();
    document.querySelectorAll(".lang-switch button").forEach((b) => b.addEventListener("click", () => V.setLang(b.dataset.lang)));
    let info;
    try { info = await (await fetch("/api/info")).json(); } catch (err) {
      V.banner(V.t("error.network"), "error");
      info = { auth: false, vendor: {}, setup: [] };
    }
    V.info = info;
    const tokenButton = document.getElementById("token-button");
    if (info.auth && tokenButton) {
      tokenButton.hidden = false;
      tokenButton.addEventListener("click", async () => { if (await V.askToken()) location.reload(); });
      if (!V.token()) await V.askToken();
    }
    const files = { chartjs: "/static/vendor/chart.umd.min.js", mermaid: "/static/vendor/mermaid.min.js" };
    const missing = needed.filter((name) => !info.vendor[name]);
    if (missing.length) V.banner(V.t("vendor.missing", { names: missing.join(", ") }), "warn");
    for (const name of needed.filter((n) => info.vendor[n])) {
      try { await V.loadScript(files[name]); } catch (err) { V.banner(err.message, "error"); }
    }
    return info;
  };

  /* Server-Sent Events from a fetch response (fetch sends the token; EventSource cannot).
     onEvent(data, id) per event; id is the event's numeric `id:` or null. */
  V.readSse = async function (resp, onEvent) {
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const lines = buffer.slice(0, cut).split("\n");
        buffer = buffer.slice(cut + 2);
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
        const idLine = lines.find((l) => l.startsWith("id:"));
        if (data) onEvent(JSON.parse(data), idLine ? Number(idLine.slice(3).trim()) : null);
      }
    }
  };

  /* Category labels that are all shown: Chart.js would drop every second one on a phone
     (autoSkip). Up to MAX_SHOWN categories are kept: an x axis rotates them (up to upright)
     when they do not fit, a horizontal chart's long labels wrap into lines on a narrow
     screen; a longer axis (a daily series) keeps Chart.js's thinning. */
  const MAX_SHOWN = 40;
  function wrapLabel(text, width) {
    const lines = [];
    for (const word of String(text).split(/\s+/)) {
      const last = lines.length - 1;
      if (last >= 0 && (lines[last] + " " + word).length <= width) lines[last] += " " + word;
      else lines.push(word);
    }
    return lines.length > 1 ? lines : String(text);
  }
  V.fitChartLabels = function (spec) {
    const labels = (spec.data && spec.data.labels) || [];
    if (!labels.length || labels.length > MAX_SHOWN || spec.type === "pie" || spec.type === "doughnut") return spec;
    spec.options = spec.options || {};
    const horizontal = spec.options.indexAxis === "y";
    const scales = spec.options.scales = spec.options.scales || {};
    const scale = scales[horizontal ? "y" : "x"] = scales[horizontal ? "y" : "x"] || {};
    scale.ticks = Object.assign({ autoSkip: false, maxRotation: horizontal ? 0 : 90, minRotation: 0 }, scale.ticks || {});
    // a horizontal chart's labels wrap on a phone; an x axis rotates its one-line labels
    // (wrapped lines rotated together would overlap their neighbours)
    if (horizontal && window.matchMedia("(max-width: 767px)").matches) {
      spec.data.labels = labels.map((l) => wrapLabel(l, 18));
    }
    return spec;
  };

  /* A download's file name a person recognises: the question and the run's date
     ("Сумма платежей по каналам за 2025 год 2026-12-07.xlsx"), not a run id. The server
     names its files the same way (server/views/runs.py download_name). */
  V.fileName = function (turn, ext) {
    const asked = String((turn && (turn.rewritten_question || turn.question)) || "vitrina");
    const base = asked.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, " ").replace(/\s+/g, " ").trim().slice(0, 80).trim() || "vitrina";
    const when = turn && turn.created_at ? new Date(turn.created_at * 1000) : new Date();
    const day = `${when.getFullYear()}-${String(when.getMonth() + 1).padStart(2, "0")}-${String(when.getDate()).padStart(2, "0")}`;
    return `${base} ${day}.${ext}`;
  };

  /* Download through fetch so the token header is sent; the browser saves the blob. */
  V.download = async function (url, filename) {
    const resp = await V.api(url);
    const blob = await resp.blob();
    const href = URL.createObjectURL(blob);
    const a = V.el("a", { href, download: filename });
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(href), 10000);
  };
})();
