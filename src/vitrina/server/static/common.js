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
  V.stepName = (step) => (I18N[V.lang].steps || {})[step] || step;

  V.applyI18n = function (root) {
    document.documentElement.lang = V.lang;
    (root || document).querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = V.t(el.dataset.i18n); });
    (root || document).querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = V.t(el.dataset.i18nPlaceholder); });
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

  V.banner = function (text, kind) {
    const b = document.getElementById("banner");
    if (!text) { b.hidden = true; return; }
    b.textContent = text;
    b.className = "banner " + (kind || "warn");
    b.hidden = false;
  };

  V.token = () => localStorage.getItem("vitrina.token") || "";
  V.headers = function (extra) {
    const h = Object.assign({}, extra || {});
    if (V.token()) h.Authorization = "Bearer " + V.token();
    return h;
  };

  V.askToken = function () {
    return new Promise((resolve) => {
      const dialog = document.getElementById("token-dialog");
      const input = document.getElementById("token-input");
      input.value = V.token();
      dialog.addEventListener("close", () => {
        if (input.value.trim()) localStorage.setItem("vitrina.token", input.value.trim());
        resolve();
      }, { once: true });
      dialog.showModal();
    });
  };

  V.errorText = function (body, status) {
    const e = body && body.error;
    if (!e) return V.t("error.generic") + " " + status;
    return (V.lang === "ru" ? e.message_ru || e.message : e.message) + " (" + e.code + ")";
  };

  /* fetch + JSON; a 401 asks for the token once and retries. */
  V.api = async function (path, options, retried) {
    const opts = Object.assign({}, options || {});
    opts.headers = V.headers(Object.assign({ Accept: "application/json" }, opts.headers || {}));
    let resp;
    try { resp = await fetch(path, opts); } catch (err) { throw new Error(V.t("error.network")); }
    if (resp.status === 401 && !retried) { await V.askToken(); return V.api(path, options, true); }
    if (!resp.ok) {
      let body = null;
      try { body = await resp.json(); } catch (err) { /* not JSON */ }
      const error = new Error(V.errorText(body, resp.status));
      error.status = resp.status;
      throw error;
    }
    return resp;
  };
  V.json = async (path, options) => (await V.api(path, options)).json();

  V.loadScript = function (src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src; s.onload = resolve; s.onerror = () => reject(new Error("cannot load " + src));
      document.head.append(s);
    });
  };

  /* /api/info: auth mode and which vendor libraries the server has. */
  V.start = async function (needed) {
    V.applyI18n();
    document.querySelectorAll(".lang-switch button").forEach((b) => b.addEventListener("click", () => V.setLang(b.dataset.lang)));
    const info = await (await fetch("/api/info")).json();
    V.info = info;
    const tokenButton = document.getElementById("token-button");
    if (info.auth) {
      tokenButton.hidden = false;
      tokenButton.addEventListener("click", async () => { await V.askToken(); location.reload(); });
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
