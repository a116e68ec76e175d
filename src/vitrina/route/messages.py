"""User-facing texts of the route job, Russian and English. Numbers never come from here."""

from __future__ import annotations

from vitrina.i18n import Messages

TEXTS: dict[str, dict[str, str]] = {
    "help": {
        "ru": (
            "Я Витрина, аналитический помощник. Что я умею:\n"
            "• отвечать на вопросы по данным: «{question}»;\n"
            "• строить отчёты: «Отчёт: {metric} по месяцам» (несколько "
            "планов, лучший выполняется, с графиком и Excel);\n"
            "• искать метаданные: «Где хранятся остатки товаров на складах?», «Какие "
            "таблицы есть по теме «{topic}»?»;\n"
            "• документировать меры BI: «Документация по мере [Total Sales]»;\n"
            "• для 1С:Предприятия — находить регистры и писать запрос 1С, схему СКД и "
            "навигационные ссылки."
        ),
        "en": (
            "I am Vitrina, an analytics assistant. I can:\n"
            '• answer questions about your data: "{question}";\n'
            '• build reports: "Report: {metric} by month" (several plans, '
            "the best is run, with a chart and Excel);\n"
            '• search metadata: "Where are warehouse stock balances stored?", "Which '
            'tables are about {topic}?";\n'
            '• document BI measures: "Documentation for measure [Total Sales]";\n'
            "• for 1C:Enterprise: find registers and write a 1C query, a data "
            "composition schema and links."
        ),
    },
    "task_started": {
        "ru": "Предлагаю план задачи {task_id}:\n{plan}\nСогласуйте план и шаги: vitrina task "
        '"" --task {task_id} '
        "или на странице /task веб-приложения.",
        "en": "Proposed plan for task {task_id}:\n{plan}\nApprove the plan and its steps with "
        'vitrina task "" --task {task_id} or on the /task page of the web app.',
    },
    "task_unavailable": {
        "ru": (
            "Многошаговые аналитические задачи (план → согласование → выполнение по "
            "шагам) появятся в задании "
            "«task»; пока он недоступен. Могу ответить на отдельный вопрос или построить отчёт."
        ),
        "en": (
            "Multi-step analytical tasks (plan -> approval -> step-by-step execution) "
            "come with the task job, "
            "which is not available yet. I can answer a single question or build a report."
        ),
    },
    "task_policed": {
        "ru": (
            "Задачу отсюда запустить нельзя: у токена есть политика доступа к строкам, а задача "
            "из этого ответа шла бы без неё. Запустите её на странице задач (/task) или через "
            "MCP start_task: там она читает только строки вашей политики."
        ),
        "en": (
            "A task cannot be started from here: the token has a row policy, and a task started "
            "from this reply would run without it. Start it on the task page (/task) or with "
            "MCP start_task: there it reads only your policy's rows."
        ),
    },
    "docs_no_model": {
        "ru": "Модель Tabular не настроена: укажите файл .bim или папку TMDL "
        "(VITRINA_DOCS_MODEL или --model).",
        "en": "No Tabular model is configured: give a .bim file or a TMDL folder "
        "(VITRINA_DOCS_MODEL or --model).",
    },
    "docs_from_manual": {
        "ru": "Документация по мере [{measure}] (страница документации: {link}):",
        "en": "Documentation of measure [{measure}] (documentation page: {link}):",
    },
    "docs_not_in_manual": {
        "ru": "Меры [{measure}] нет в документации, которую показывает страница /docs: "
        "проверьте имя меры в списке на этой странице.",
        "en": "Measure [{measure}] is not in the documentation the /docs page shows: check "
        "its name in the list on that page.",
    },
    "docs_no_measure": {
        "ru": "Не понял, какую меру документировать: напишите её имя в квадратных скобках, "
        "например [Total Sales].",
        "en": "Which measure? Write its name in square brackets, e.g. [Total Sales].",
    },
    "docs_missed": {
        "ru": "Мера [{measure}] не задокументирована: {reason}.",
        "en": "Measure [{measure}] was not documented: {reason}.",
    },
    "docs_done": {
        "ru": "Документация по мере [{measure}]: {path}",
        "en": "Documentation of measure [{measure}]: {path}",
    },
    "found": {"ru": "Нашёл в каталоге:", "en": "Found in the catalog:"},
    "meta_columns": {"ru": "Поля", "en": "Fields"},
    "meta_measures": {"ru": "Меры", "en": "Measures"},
    "meta_ask": {"ru": "Как спросить", "en": "How to ask"},
    "meta_value": {
        "ru": "значение «{value}» есть в поле {column}",
        "en": "the value '{value}' is in the field {column}",
    },
    "not_found": {
        "ru": "Ничего подходящего в каталоге не нашлось ({steps} шагов поиска).",
        "en": "Nothing matching was found in the catalog ({steps} search steps).",
    },
    "guard": {
        "ru": "Поиск остановлен после {steps} шагов (предел).",
        "en": "Search stopped after {steps} steps (the limit).",
    },
    "no_plan": {
        "ru": "Не удалось составить план отчёта: {reason}",
        "en": "Could not plan a report: {reason}",
    },
    "no_metric": {
        "ru": "в каталоге не нашлось меры для этого запроса",
        "en": "no measure in the catalog fits this request",
    },
    "report_failed": {
        "ru": "Отчёт не выполнен: {reason}",
        "en": "The report did not run: {reason}",
    },
    "steps": {"ru": "Шаги поиска", "en": "Search steps"},
    "plans": {"ru": "Варианты отчёта", "en": "Report plans"},
    "chosen": {"ru": "выбран", "en": "chosen"},
    "chosen_plan": {"ru": "Вариант отчёта: {label}.", "en": "Report option: {label}."},
    "technical": {"ru": "Технические подробности", "en": "Technical details"},
    "onec_report": {
        "ru": "Запрос 1С для отчёта «{title}» по {source} (виртуальная таблица {vt}).",
        "en": "1C query for the report '{title}' over {source} (virtual table {vt}).",
    },
    "onec_no_register": {
        "ru": "в конфигурации не нашлось объекта (регистра, документа, справочника или отчёта), "
        "который называет этот запрос",
        "en": "no object of the configuration (register, document, catalog or report) is named by "
        "this request",
    },
    "onec_filters": {
        "ru": "Отборы из запроса: {filters}.",
        "en": "Filters from the request: {filters}.",
    },
    "onec_unplaced": {
        "ru": "Не применены отборы {filters}: у {source} нет поля этого типа; уточните запрос.",
        "en": "Filters {filters} were not applied: {source} has no field of that type; please "
        "rephrase.",
    },
    "onec_unsure": {
        "ru": "Не уверен в выборе: {why}. Проверьте варианты ниже.",
        "en": "Not sure of the choice: {why}. Check the plans below.",
    },
    "onec_recorders": {
        "ru": "Регистр {register} двигают документы: {documents}.",
        "en": "Documents recording into {register}: {documents}.",
    },
    "onec_attributes": {
        "ru": "Реквизиты {object}: {fields}. Запрос, который их выбирает, — ниже.",
        "en": "Attributes of {object}: {fields}. The query that selects them is below.",
    },
    "onec_reports": {
        "ru": "Отчёты конфигурации по теме «{subject}»: {reports}.",
        "en": "The configuration's reports on '{subject}': {reports}.",
    },
    "onec_no_reports": {
        "ru": "В конфигурации нет отчёта по теме «{subject}»; попросите отчёт — будет написан "
        "запрос 1С.",
        "en": "The configuration has no report on '{subject}'; ask for the report and a 1C query "
        "will be written.",
    },
    "onec_no_recorders": {
        "ru": "У регистра {register} нет документов-регистраторов в конфигурации.",
        "en": "No document of the configuration records into {register}.",
    },
}


text = Messages(TEXTS)
