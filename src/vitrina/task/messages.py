"""User-facing texts of the task job, Russian and English. Numbers never come from here."""

from __future__ import annotations

from vitrina.i18n import Messages

TEXTS: dict[str, dict[str, str]] = {
    "loop_guard": {"ru": "Шаг остановлен: превышен лимит итераций ({limit}). Выберите: повторить, пропустить или "
                         "остановить задачу.",
                   "en": "The step was stopped: the iteration limit ({limit}) was reached. Choose: redo, skip or "
                         "stop the task."},
    "global_bound": {"ru": "Задача остановлена: превышен общий лимит итераций ({limit}).",
                     "en": "The task was stopped: the overall iteration limit ({limit}) was reached."},
    "no_calls": {"ru": "Ответ модели объявил вызов инструмента, но не содержал его.",
                 "en": "The model announced a tool call but sent none."},
    "correction": {"ru": "Вы объявили вызов инструмента, но не передали его. Вызовите инструмент с аргументами "
                         "или напишите отчёт по шагу без вызова.",
                   "en": "You announced a tool call but sent none. Call a tool with its arguments, or write "
                         "the step's report without a call."},
    "no_tool": {"ru": "Для шага не задан инструмент.", "en": "The step has no tool."},
    "unknown_tool": {"ru": "Неизвестный инструмент «{tool}».", "en": "Unknown tool '{tool}'."},
    "step_ok": {"ru": "Шаг {n} выполнен: {what}.", "en": "Step {n} done: {what}."},
    "summary_title": {"ru": "Итог задачи", "en": "Task summary"},
    "summary_request": {"ru": "Запрос", "en": "Request"},
    "summary_plan": {"ru": "План и результаты", "en": "Plan and results"},
    "summary_files": {"ru": "Файлы", "en": "Files"},
    "summary_counts": {"ru": "Выполнено шагов: {done} из {total}; пропущено: {skipped}; не выполнено: {pending}.",
                       "en": "Steps done: {done} of {total}; skipped: {skipped}; not done: {pending}."},
    "status_done": {"ru": "выполнен", "en": "done"},
    "status_skipped": {"ru": "пропущен", "en": "skipped"},
    "status_pending": {"ru": "не выполнен", "en": "not done"},
    "status_in_progress": {"ru": "прерван", "en": "interrupted"},
    "stopped": {"ru": "Задача остановлена пользователем.", "en": "The task was stopped by the user."},
    "redo_limit": {"ru": "Лимит повторов шага исчерпан ({limit}): шаг пропущен.",
                   "en": "The step's redo limit ({limit}) is spent: the step is skipped."},
    "plan_capped": {"ru": "План сокращён до {limit} шагов.", "en": "The plan was cut to {limit} steps."},
}


text = Messages(TEXTS)
