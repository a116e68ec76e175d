/* Vitrina dashboard: draws every chart of the embedded (or fetched) bundle with Chart.js.
   Animations are off, so a chart is complete when it is drawn (known error ERR-004); each
   canvas gets data-drawn="1" after its first paint and <body> gets data-ready="1" when all are. */
(function () {
  "use strict";
  const MAX_LABEL = 28;
  const lang = document.body.dataset.lang === "en" ? "en-US" : "ru-RU";
  const compact = new Intl.NumberFormat(lang, { notation: "compact", maximumFractionDigits: 1 });
  const plain = new Intl.NumberFormat(lang, { maximumFractionDigits: 2 });
  const tick = (v) => (Math.abs(v) >= 1000 ? compact.format(v) : plain.format(v));  // 5,45 stays 5,45
  window.vitrinaDashboard = { cutLabels: 0, drawn: 0, charts: 0, errors: [] };

  function fail(message) {
    const status = document.getElementById("status");
    status.textContent = message;
    status.hidden = false;
    window.vitrinaDashboard.errors.push(message);
    console.error(message);
  }

  function shortLabel(value) {
    const text = String(value);
    if (text.length <= MAX_LABEL) return text;
    window.vitrinaDashboard.cutLabels += 1;
    return text.slice(0, MAX_LABEL - 1) + "\u2026";
  }

  function prepare(spec) {
    const config = JSON.parse(JSON.stringify(spec));
    const options = Object.assign({ responsive: true, maintainAspectRatio: false }, config.options || {});
    options.animation = false;
    options.plugins = Object.assign({}, options.plugins || {});
    options.plugins.title = { display: false };  // the title is the cell's heading, checked for cuts
    const scales = options.scales || {};
    for (const [axis, scale] of Object.entries(scales)) {
      const isValue = scale.type === "linear" && !(axis.startsWith("x") && options.indexAxis !== "y");
      const labels = config.data && config.data.labels;
      scale.ticks = Object.assign({}, scale.ticks || {}, isValue
        ? { callback: tick }
        : { callback: function (v) { return shortLabel(labels ? labels[v] : this.getLabelForValue(v)); } });
    }
    options.scales = scales;
    config.options = options;
    return config;
  }

  function fillText(bundle) {
    for (const element of bundle.elements) {
      const card = document.querySelector(`[data-card="${CSS.escape(element.id)}"]`);
      if (card && element.kind === "card") card.textContent = element.spec.data.items.map((i) => i.value).join(" ");
      const caption = document.querySelector(`[data-caption="${CSS.escape(element.id)}"]`);
      if (caption) { caption.textContent = element.caption || ""; caption.hidden = !element.caption; }
    }
  }

  function draw(bundle) {
    const charts = bundle.elements.filter((e) => e.kind === "chart");
    window.vitrinaDashboard.charts = charts.length;
    if (typeof window.Chart !== "function") {
      fail("Chart.js did not load (assets/chart.umd.min.js)");
      return;
    }
    const markDrawn = {
      id: "vitrinaDrawn",
      afterRender(chart) {
        if (chart.canvas.dataset.drawn === "1") return;
        chart.canvas.dataset.drawn = "1";
        window.vitrinaDashboard.drawn += 1;
        if (window.vitrinaDashboard.drawn === charts.length) document.body.dataset.ready = "1";
      },
    };
    if (!charts.length) document.body.dataset.ready = "1";
    for (const element of charts) {
      const canvas = document.querySelector(`canvas[data-chart="${CSS.escape(element.id)}"]`);
      if (!canvas) { fail(`no canvas for chart ${element.id}`); continue; }
      try {
        const config = prepare(element.spec);
        config.plugins = [markDrawn];
        new window.Chart(canvas, config);
      } catch (err) {
        fail(`chart ${element.id}: ${err}`);
      }
    }
  }

  const embedded = document.getElementById("dashboard-data");
  if (embedded) {
    draw(JSON.parse(embedded.textContent));
    return;
  }
  // the token the Vitrina chat keeps for this tab (sessionStorage); one an older chat left in
  // localStorage is moved there once and deleted
  let token = sessionStorage.getItem("vitrina.token");
  const old = localStorage.getItem("vitrina.token");
  if (old !== null) {
    localStorage.removeItem("vitrina.token");
    if (!token && old) { token = old; sessionStorage.setItem("vitrina.token", old); }
  }
  fetch("dashboard.json", { headers: token ? { Authorization: "Bearer " + token } : {} })
    .then((response) => {
      if (response.status === 401) throw new Error(lang === "ru-RU"
        ? "нужен API-токен: откройте чат Vitrina в этой вкладке и введите токен" : "an API token is required: open the Vitrina chat in this tab and enter your token");
      if (!response.ok) throw new Error(`dashboard.json: HTTP ${response.status}`);
      return response.json();
    })
    .then((bundle) => { fillText(bundle); draw(bundle); })
    .catch((err) => fail(String(err.message || err)));
})();
