"""User-facing texts of the ask job, in Russian and English. Code picks; text only here."""

from __future__ import annotations

from vitrina.i18n import Messages

TEXTS: dict[str, dict[str, str]] = {
    "model_down_answered": {
        "ru": "Модель была недоступна, поэтому ответ построен по правилам каталога "
        "(сложные условия вопроса могли быть не учтены).",
        "en": "The model was unavailable, so the catalog's rules answered "
        "(a complex condition of the question may have been missed).",
    },
    "model_down_other": {
        "ru": "Модель была недоступна, поэтому вопрос разбирался только по правилам каталога.",
        "en": "The model was unavailable, so only the catalog's rules read the question.",
    },
    "no_topic": {
        "ru": "В каталоге нет данных, чтобы ответить на этот вопрос. Я могу ответить про: "
        "{topics}. Переформулируйте вопрос, назвав показатель (например, {examples}).",
        "en": "The catalog holds no data to answer this question. I can answer about: {topics}. "
        "Rephrase the question naming a metric (for example {examples}).",
    },
    "refuse_word": {
        "ru": "В хранилище нет данных по теме «{word}», поэтому ответить не могу — придумывать "
        "цифры я не буду. Доступные темы: {topics}.",
        "en": 'The warehouse holds no data about "{word}", so I cannot answer; I will not '
        "invent numbers. Available topics: {topics}.",
    },
    "unexplained": {
        "ru": "Я не понял в вопросе: {words}. Отвечать без них не буду, чтобы не посчитать не то. "
        "Переформулируйте вопрос словами каталога: показатель (например, {examples}), "
        "период, разрез.",
        "en": "I could not place these words of the question: {words}. I will not answer "
        "without them, "
        "so as not to compute something else. Rephrase it with the catalog's words: a metric "
        "(for example {examples}), a period, a breakdown.",
    },
    "write_request": {
        "ru": "Я только читаю данные и не могу их менять («{verb}»). Могу показать текущие "
        "значения: спросите, например, «{example}».",
        "en": 'I only read data and cannot change it ("{verb}"). I can show the current '
        "figures: ask, "
        'for example, "{example}".',
    },
    "unknown_value": {
        "ru": "Не нашёл «{name}» в справочниках каталога, поэтому не могу применить такой фильтр. "
        "Проверьте написание или спросите без него.",
        "en": '"{name}" is not in the catalog\'s value lists, so I cannot filter by it. '
        "Check the spelling or ask without it.",
    },
    "filter_unreachable": {
        "ru": "Фильтр «{filter}» нельзя применить к показателю «{metric}»: таблицы не связаны "
        "в каталоге.",
        "en": 'The filter "{filter}" cannot be applied to "{metric}": the catalog has no '
        "relation between them.",
    },
    "dimension_unreachable": {
        "ru": "Разрез «{dimension}» недоступен для показателя «{metric}»: таблицы не связаны в "
        "каталоге.",
        "en": 'The breakdown "{dimension}" is not available for "{metric}": the catalog has no '
        "relation between them.",
    },
    "segment_unreachable": {
        "ru": "Показатель «{metric}» нельзя ограничить сегментом «{segment}»: в каталоге нет "
        "связи с {column}.",
        "en": '"{metric}" cannot be limited to the segment "{segment}": the catalog has no '
        "relation to {column}.",
    },
    "join_ambiguous": {
        "ru": "Таблицу «{table}» можно присоединить несколькими путями: через {ways}. Уточните "
        "в вопросе, какой нужен (например, назовите таблицу, через которую идти).",
        "en": 'The table "{table}" can be reached several ways: through {ways}. Say in the '
        "question which one you mean (for example, name the table to go through).",
    },
    "date_unavailable": {
        "ru": "Показатель «{metric}» нельзя отнести к дате «{date}». Доступные даты: {dates}.",
        "en": '"{metric}" cannot be dated by "{date}". Its dates: {dates}.',
    },
    "no_date": {
        "ru": "У показателя «{metric}» нет даты в каталоге, поэтому период или календарный фильтр "
        "к нему применить нельзя. Спросите без периода или добавьте показателю date_column.",
        "en": '"{metric}" has no date in the catalog, so a period or calendar filter cannot be '
        "applied. Ask without a period or give the metric a date_column.",
    },
    "clarify_topic": {
        "ru": "Уточните, пожалуйста, о чём вопрос:",
        "en": "Please clarify what the question is about:",
    },
    "clarify_segment": {
        "ru": "Диалог настроен на сегмент {dialog}, а вопрос — про {question}. Какой сегмент "
        "использовать?",
        "en": "The dialog is set to the {dialog} segment but the question is about {question}. "
        "Which segment?",
    },
    "clarify_limit": {
        "ru": "Уточнений было достаточно; отвечаю по теме «{topic}».",
        "en": 'Enough clarifications; answering for the topic "{topic}".',
    },
    "sql_failed": {
        "ru": "Не удалось построить корректный запрос за {attempts} попытки. Последняя ошибка: "
        "{error}. Попробуйте переформулировать: назовите один показатель (например, {examples}), "
        "период и разрез.",
        "en": "Could not build a valid query in {attempts} attempts. Last error: {error}. "
        "Try rephrasing: name one metric (for example {examples}), a period and a breakdown.",
    },
    "warehouse_privileged": {
        "ru": "Витрина не выполняет запросы от имени привилегированной роли хранилища. {error}",
        "en": "Vitrina does not query the warehouse as a privileged role. {error}",
    },
    "warehouse_down": {
        "ru": "Хранилище недоступно: {error}. Проверьте адрес (--db) и что сервер запущен.",
        "en": "The warehouse is not reachable: {error}. Check the URL (--db) and that the "
        "server is running.",
    },
    "timeout": {
        "ru": "Запрос выполнялся слишком долго и был остановлен ({error}). Сузьте период или "
        "уберите разрез.",
        "en": "The query took too long and was stopped ({error}). Narrow the period or drop a "
        "breakdown.",
    },
    "empty": {
        "ru": "Данных за период «{period}» нет.",
        "en": "There is no data for {period}.",
    },
    "data_range": {
        "ru": "Данные по теме «{topic}» есть с {start} по {end}.",
        "en": "Data on {topic} is available from {start} to {end}.",
    },
    "all_time": {"ru": "всё время", "en": "all time"},
}


text = Messages(TEXTS)
