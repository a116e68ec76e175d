"""User-facing texts of the task job, Russian and English. Numbers never come from here."""

from __future__ import annotations

from vitrina.i18n import Messages

TEXTS: dict[str, dict[str, str]] = {
    "loop_guard": {
        "ru": "Шаг остановлен: превышен лимит итераций ({limit}). Выберите: повторить, "
        "пропустить или остановить задачу.",
        "en": "The step was stopped: the iteration limit ({limit}) was reached. Choose: redo, "
        "skip or stop the task.",
    },
    "global_bound": {
        "ru": "Задача остановлена: превышен общий лимит итераций ({limit}).",
        "en": "The task was stopped: the overall iteration limit ({limit}) was reached.",
    },
    "no_calls": {
        "ru": "Ответ модели объявил вызов инструмента, но не содержал его.",
        "en": "The model announced a tool call but sent none.",
    },
    "correction": {
        "ru": "Вы объявили вызов инструмента, но не передали его. Вызовите инструмент с "
        "аргументами или напишите отчёт по шагу без вызова.",
        "en": "You announced a tool call but sent none. Call a tool with its arguments, or write "
        "the step's report without a call.",
    },
    "no_tool": {"ru": "Для шага не задан инструмент.", "en": "The step has no tool."},
    "unknown_tool": {"ru": "Неизвестный инструмент «{tool}».", "en": "Unknown tool '{tool}'."},
    "step_ok": {"ru": "Шаг {n} выполнен: {what}.", "en": "Step {n} done: {what}."},
    "clarify_applied": {"ru": "Уточнено: {choice}.", "en": "Clarified: {choice}."},
    "step_clarify": {
        "ru": "Вопрос «{question}» нужно уточнить: {options}?",
        "en": "The question '{question}' needs a clarification: {options}?",
    },
    "summary_title": {"ru": "Итог задачи", "en": "Task summary"},
    "summary_request": {"ru": "Запрос", "en": "Request"},
    "summary_plan": {"ru": "Шаги", "en": "Steps"},
    "summary_files": {"ru": "Файлы", "en": "Files"},
    "summary_findings": {"ru": "Выводы", "en": "Findings"},
    "summary_failed": {
        "ru": "Шаг {n} «{title}» не выполнен: {why}",
        "en": "Step {n} “{title}” was not done: {why}",
    },
    "summary_counts": {
        "ru": "Выполнено шагов: {done} из {total}; пропущено: {skipped}; не выполнено: {pending}.",
        "en": "Steps done: {done} of {total}; skipped: {skipped}; not done: {pending}.",
    },
    "status_done": {"ru": "выполнен", "en": "done"},
    "status_skipped": {"ru": "пропущен", "en": "skipped"},
    "status_pending": {"ru": "не выполнен", "en": "not done"},
    "status_in_progress": {"ru": "прерван", "en": "interrupted"},
    "nothing_done": {
        "ru": "Задача не выполнена: ни один шаг с данными не выполнен ({skipped} пропущено, "
        "{pending} не выполнено из {total}). Проверьте формулировку задачи и причины в шагах "
        "ниже и запустите её снова.",
        "en": "The task was not done: no data step ran ({skipped} skipped, {pending} not done "
        "of {total}). Check the task's wording and the reasons in the steps below, and start it "
        "again.",
    },
    "run_crashed": {
        "ru": "Выполнение прервано сбоем сервера на шаге {n}: шаг не завершился и будет "
        'выполнен заново при запуске сервера (или: vitrina task "" --task {task_id}).',
        "en": "The run was interrupted by a server crash at step {n}: the step did not finish "
        'and is run again when the server starts (or: vitrina task "" --task {task_id}).',
    },
    "run_resumed": {
        "ru": "Сервер перезапущен: задача продолжена с контрольной точки; шаг {n} прерван сбоем "
        "и выполняется заново (завершённые шаги не повторяются).",
        "en": "The server restarted: the task continues from its checkpoint; step {n} was cut "
        "off by the crash and runs again (finished steps are not repeated).",
    },
    "run_resumed_between": {
        "ru": "Сервер перезапущен: задача продолжена с контрольной точки (сбой пришёлся между "
        "шагами; завершённые шаги не повторяются).",
        "en": "The server restarted: the task continues from its checkpoint (the crash came "
        "between steps; finished steps are not repeated).",
    },
    "run_crashed_between": {
        "ru": "Выполнение прервано сбоем сервера между шагами; задача продолжится при запуске "
        'сервера (или: vitrina task "" --task {task_id}).',
        "en": "The run was interrupted by a server crash between steps; the task continues "
        'when the server starts (or: vitrina task "" --task {task_id}).',
    },
    "not_your_task": {
        "ru": "Задача {task_id} принадлежит другому владельцу (API-токену): продолжите её в "
        "веб-приложении или через API с этим токеном.",
        "en": "Task {task_id} belongs to another owner (an API token): continue it in the web "
        "app or over the API with that token.",
    },
    "stopped": {
        "ru": "Задача остановлена пользователем.",
        "en": "The task was stopped by the user.",
    },
    "redo_limit": {
        "ru": "Лимит повторов шага исчерпан ({limit}): шаг пропущен.",
        "en": "The step's redo limit ({limit}) is spent: the step is skipped.",
    },
    "plan_capped": {
        "ru": "План сокращён до {limit} шагов.",
        "en": "The plan was cut to {limit} steps.",
    },
    # result checks: a step whose result fails one cannot be approved
    "no_data": {
        "ru": "Нет данных за {period}{span}.",
        "en": "There is no data for {period}{span}.",
    },
    "data_span": {
        "ru": "; данные есть с {start} по {end}",
        "en": "; the data cover {start} to {end}",
    },
    "wrong_period": {
        "ru": "Ответ получен за {got}, а нужен период {want}.",
        "en": "The answer covers {got}, but {want} was asked.",
    },
    "series_short": {
        "ru": "Ряд покрывает {have} из {want} мес. ({first} – {last}){missing}.",
        "en": "The series covers {have} of {want} months ({first} – {last}){missing}.",
    },
    "series_missing": {"ru": "; нет месяцев: {months}", "en": "; missing months: {months}"},
    "compare_empty": {"ru": "Сравнение пустое: {why}.", "en": "The comparison is empty: {why}."},
    "compare_no_rows": {"ru": "в шаге {n} нет строк", "en": "step {n} has no rows"},
    "compare_no_match": {
        "ru": "ни одна строка шага {a} не нашла пары в шаге {b}",
        "en": "no row of step {a} has a match in step {b}",
    },
    "compare_partial": {
        "ru": "Период {period} неполный: данные по {end}. Сравнение неполного периода с полным "
        "покажет ложное падение; уточните период (повторить с комментарием).",
        "en": "The period {period} is incomplete: the data end on {end}. Comparing it with a "
        "whole period shows a false drop; give another period (redo with a comment).",
    },
    "forecast_overlap": {
        "ru": "Прогноз перекрывает фактические данные: первый месяц прогноза — {first}, "
        "последний месяц с фактом — {last}.",
        "en": "The forecast overlaps actuals: its first month is {first}, the last month with "
        "actuals is {last}.",
    },
    "forecast_horizon": {
        "ru": "Прогноз на {got}, а запрошен {want}.",
        "en": "The forecast covers {got}, but {want} was asked.",
    },
    "partial_month": {
        "ru": "Неполные периоды ({why}) в ряд не входят: {month}",
        "en": "Incomplete periods ({why}) are left out of the series: {month}",
    },
    "partial_data": {"ru": "данные по {end}", "en": "data to {end}"},
    "partial_today": {"ru": "месяц ещё идёт", "en": "the month is not over"},
    "partial_edges": {
        "ru": "период или данные покрывают его не целиком",
        "en": "the period or the data do not cover it whole",
    },
    # redo comments in rules mode
    "redo_applied": {
        "ru": "Повтор с изменениями: {changes}.",
        "en": "Redone with changes: {changes}.",
    },
    "redo_fixed": {
        "ru": "Комментарий «{comment}» к шагу «{title}» применить нельзя: {why}. Шаг не "
        "перезапущен: повторите его без комментария или измените шаг, из которого он считается.",
        "en": 'The comment "{comment}" cannot be applied to the step "{title}": {why}. The step '
        "was not rerun: redo it without a comment, or change the step it is computed from.",
    },
    "redo_fixed_sources": {
        "ru": "это расчёт по таблицам шагов {steps}, и комментарий не меняет его аргументов",
        "en": "it is computed from the tables of steps {steps}, and a comment does not change "
        "its arguments",
    },
    "redo_fixed_args": {
        "ru": "без модели аргументы этого шага комментарием не меняются",
        "en": "without a model this step's arguments do not change by a comment",
    },
    "redo_refused": {
        "ru": "Комментарий не понят без модели: «{comment}». Для этого шага можно изменить: "
        "{what}. Например: {example}.",
        "en": 'The comment was not understood without a model: "{comment}". For this step you can '
        "change: {what}. For example: {example}.",
    },
    # a step report of the sandboxed analyses, in the request's language (the sandbox's own
    # note is English and stays in the step's meta)
    "analysis_summary": {
        "ru": "{what}: строк — {rows}; столбцы: {columns}.",
        "en": "{what}: {rows} rows; columns: {columns}.",
    },
    "analysis_compare": {
        "ru": "Сравнение с прошлым периодом",
        "en": "Comparison with the previous period",
    },
    "analysis_decline": {"ru": "Где падение", "en": "Where it fell"},
    "analysis_growth": {"ru": "Рост по периодам", "en": "Growth by period"},
    "analysis_shares": {"ru": "Доли от итога", "en": "Shares of the total"},
    "analysis_deviation": {"ru": "Отклонения от среднего", "en": "Deviations from the mean"},
    "analysis_forecast": {"ru": "Прогноз", "en": "Forecast"},
    "files_written": {"ru": "Записаны файлы: {names}.", "en": "Files written: {names}."},
    "analysis_python": {"ru": "Расчёт на Python", "en": "Python calculation"},
    "folder_quota": {
        "ru": "Не записано ({what}, {need} МБ): папка задачи занимает {used} МБ из {quota} МБ "
        "(task_folder_max_bytes). Сузьте запрос (меньше строк или столбцов), пропустите шаг "
        "или увеличьте квоту.",
        "en": "Not written ({what}, {need} MB): the task's folder holds {used} MB of its {quota} "
        "MB (task_folder_max_bytes). Narrow the query (fewer rows or columns), skip the step "
        "or raise the quota.",
    },
}


text = Messages(TEXTS)
