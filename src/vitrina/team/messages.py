"""The team's words on the board and in the terminal, in Russian and English."""

from __future__ import annotations

from vitrina.i18n import Messages

TEXTS = {
    # scoping
    "scope_done": {
        "ru": "Рамки записаны: {kpis} KPI, период {period}, аудитория: {audience}.",
        "en": "Scope written: {kpis} KPIs, period {period}, audience: {audience}.",
    },
    "scope_blocked": {
        "ru": "В брифе не хватает того, без чего дашборд не построить. Вопросы заказчику:",
        "en": "The brief lacks what the dashboard needs. Questions for the requester:",
    },
    "flags": {"ru": "Отмечено:", "en": "Flagged:"},
    # the manager gate
    "gate_questions": {
        "ru": "Бриф не готов к работе команды: {count} вопрос(ов) заказчику. Ответьте в брифе "
        "и запустите сборку снова.",
        "en": "The brief is not ready for the team: {count} question(s) for the requester. "
        "Answer them in the brief and run the build again.",
    },
    "gate_person": {
        "ru": "Бриф остаётся неясным после {rounds} раундов вопросов: его должен разобрать "
        "человек.",
        "en": "The brief is still unclear after {rounds} rounds of questions: a person must "
        "settle it.",
    },
    # generic
    "cannot_apply": {
        "ru": "Правила не умеют применить эти замечания; нужен человек:",
        "en": "The rules cannot apply these amendments; a person must:",
    },
    "same_result": {
        "ru": "Переделка по правилам даёт тот же результат; замечания требуют человека:",
        "en": "Redoing the work by the rules gives the same result; the amendments need a person:",
    },
    "amendments_done": {"ru": "Замечания применены:", "en": "Amendments applied:"},
    "rework_done": {"ru": "Переделано по замечаниям:", "en": "Reworked after the review:"},
    # dataset / data
    "dataset_done": {
        "ru": "Набор данных спроектирован через планировщик ask: {views} представлений.",
        "en": "Dataset designed through the ask planner: {views} views.",
    },
    "dataset_blocked": {
        "ru": "Планировщик не смог построить представления:",
        "en": "The planner could not plan these views:",
    },
    "data_done": {
        "ru": "Данные собраны: {views} представлений, {rows} строк, всё через guard и только "
        "чтение.",
        "en": "Data built: {views} views, {rows} rows, all through the guard, read-only.",
    },
    "data_blocked": {"ru": "Представления не собираются:", "en": "These views do not build:"},
    # design / charts / dashboard
    "design_done": {
        "ru": "Дизайн: {cards} карточек KPI и {charts} графиков, виды по правилам графиков.",
        "en": "Design: {cards} KPI cards and {charts} charts, kinds chosen by the chart rules.",
    },
    "charts_done": {
        "ru": "Построено {charts} графиков и {cards} карточек из собранных данных.",
        "en": "Built {charts} charts and {cards} cards from the built data.",
    },
    "dashboard_done": {
        "ru": "Дашборд собран: {elements} элементов на сетке 12 колонок, скрипты локальные.",
        "en": "Dashboard assembled: {elements} elements on a 12-column grid, local scripts only.",
    },
    # reviews
    "review_ok": {
        "ru": "Проверено: {checks}. Замечаний нет.",
        "en": "Checked: {checks}. No findings.",
    },
    "review_findings": {"ru": "Проверено: {checks}. Найдено:", "en": "Checked: {checks}. Found:"},
    # coordinator
    "c_parse_brief": {
        "ru": "Бриф прочитан: {kpis} KPI. Задача рамок — {role}.",
        "en": "Brief read: {kpis} KPIs. The scope goes to {role}.",
    },
    "c_open_review": {
        "ru": "Открыто ревью: {reviewers} (раунд {round}).",
        "en": "Review opened: {reviewers} (round {round}).",
    },
    "c_rework": {
        "ru": "Возвращено на доработку (раунд {round}):",
        "en": "Returned for rework (round {round}):",
    },
    "c_amendments": {
        "ru": "Одобрено с замечаниями; {role} применяет их:",
        "en": "Approved with amendments; {role} applies them:",
    },
    "c_accept": {
        "ru": "Все ревью одобрили: результат принят.",
        "en": "Every review approves: the result is accepted.",
    },
    "c_merge": {
        "ru": "Ветка {branch} влита в main ({commit}).",
        "en": "Branch {branch} merged into main ({commit}).",
    },
    "c_next": {"ru": "Следующий шаг: {title} — {role}.", "en": "Next step: {title}, for {role}."},
    "c_phase": {
        "ru": "Фаза {old} завершена, начинается фаза {new}.",
        "en": "Phase {old} is complete; phase {new} starts.",
    },
    "c_hint": {
        "ru": "NEXT-PHASE «{hint}» из передачи не совпадает с цепочкой: идём в «{phase}».",
        "en": "The hand-off's NEXT-PHASE '{hint}' disagrees with the chain: going to '{phase}'.",
    },
    "c_publish": {"ru": "Дашборд опубликован: {location}", "en": "Dashboard published: {location}"},
    "c_escalate": {
        "ru": "Сборка остановлена, нужен человек: {reason}",
        "en": "The build stops here and needs a person: {reason}",
    },
    "c_no_block": {
        "ru": "{role} дважды не оставил(а) корректный блок передачи: {problems}",
        "en": "{role} twice left no valid hand-off block: {problems}",
    },
    "c_agent_failed": {
        "ru": "{role} не смог(ла) выполнить задачу: {error}",
        "en": "{role} could not do the task: {error}",
    },
    "reask": {
        "ru": "В комментарии нет корректного блока передачи ({problems}). {help}",
        "en": "The comment has no valid hand-off block ({problems}). {help}",
    },
}

text = Messages(TEXTS)
