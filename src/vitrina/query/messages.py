"""Texts of reading, planning and running a query, in Russian and English (the planner's
refusals, ask's answers). Code picks; text only here."""

from __future__ import annotations

from vitrina.i18n import Messages

TEXTS: dict[str, dict[str, str]] = {
    "policy_applied": {
        "ru": "Применена политика доступа токена: учтены только строки, где {policy}.",
        "en": "The token's row policy applied: only rows where {policy} were read.",
    },
    # the model was wanted and failed (decision 175): "model_not_used" with the why, then
    # who answered instead
    "model_not_used": {
        "ru": "Модель не использована: {why}.",
        "en": "The model was not used: {why}.",
    },
    "model_down_answered": {
        "ru": "Ответ построен по правилам каталога (сложные условия вопроса могли быть не учтены).",
        "en": "The catalog's rules answered (a complex condition of the question may have "
        "been missed).",
    },
    "model_down_other": {
        "ru": "Вопрос разбирался только по правилам каталога.",
        "en": "Only the catalog's rules read the question.",
    },
    "model_why_timeout": {
        "ru": "сервер модели не ответил вовремя",
        "en": "the model server did not answer in time",
    },
    "model_why_unreachable": {
        "ru": "сервер модели недоступен",
        "en": "the model server could not be reached",
    },
    "model_why_server_error": {
        "ru": "сервер модели ответил ошибкой",
        "en": "the model server answered with an error",
    },
    "model_why_invalid_reply": {
        "ru": "ответ модели не удалось разобрать",
        "en": "the model's reply could not be read",
    },
    "model_why_breaker_open": {
        "ru": "сервер модели отказывал несколько раз подряд, "
        "запросы к нему временно не отправляются",
        "en": "the model server failed several times in a row; requests to it are paused",
    },
    "model_why_budget_spent": {
        "ru": "исчерпано время модели, отведённое на этот запрос",
        "en": "the model time allowed for this request was spent",
    },
    "model_why_error": {
        "ru": "обращение к модели завершилось ошибкой",
        "en": "the request to the model failed",
    },
    "no_topic": {
        "ru": "В каталоге нет данных, чтобы ответить на этот вопрос. Я могу ответить про: "
        "{topics}. Переформулируйте вопрос, назвав показатель (например, {examples}).",
        "en": "The catalog holds no data to answer this question. I can answer about: {topics}. "
        "Rephrase the question naming a metric (for example {examples}).",
    },
    "broken_metric_columns": {
        "ru": "Показатель «{metric}» ({id}) в каталоге нельзя посчитать: его формула ссылается на "
        "столбцы {columns}, которых нет в таблице {table}. Исправьте показатель в каталоге и "
        "проверьте каталог командой `vitrina catalog check`.",
        "en": 'The metric "{metric}" ({id}) cannot be computed: its expression names the '
        "column(s) {columns}, which table {table} does not have. Fix the metric in the catalog "
        "and check it with `vitrina catalog check`.",
    },
    "broken_metric": {
        "ru": "Показатель «{metric}» ({id}) в каталоге нельзя посчитать: {reason}. Исправьте "
        "показатель в каталоге и проверьте каталог командой `vitrina catalog check`.",
        "en": 'The metric "{metric}" ({id}) cannot be computed: {reason}. Fix the metric in the '
        "catalog and check it with `vitrina catalog check`.",
    },
    "derived_both": {
        "ru": "В одном вопросе и доля, и среднее на единицу для «{metric}» — так не считаю. "
        "Спросите о каждом отдельно.",
        "en": 'A share and an average per unit of "{metric}" in one question is not something I '
        "compute. Ask for each on its own.",
    },
    "derived_not_additive": {
        "ru": "Долю или среднее на единицу для «{metric}» я не считаю: это уже не сумма "
        "(среднее, доля или уникальные значения) или в вопросе несколько показателей.",
        "en": 'I do not compute a share or an average per unit of "{metric}": it is not a sum '
        "(an average, a ratio or a distinct count), or the question names several metrics.",
    },
    "share_of_what": {
        "ru": "Не понял, долю чего считать для «{metric}»: назовите часть (например, страну) "
        "или разрез («доля по странам»).",
        "en": 'I cannot tell what share of "{metric}" to compute: name the part (a country, '
        'for example) or a breakdown ("share by country").',
    },
    "per_unreachable": {
        "ru": "Не могу посчитать «{metric}» в среднем на «{unit}»: в каталоге нет пути от "
        "показателя к этим строкам.",
        "en": 'I cannot compute "{metric}" per "{unit}": the catalog has no relation path from '
        "the metric to those rows.",
    },
    "compare_needs_groups": {
        "ru": "Условие «{metric} {condition}» относится к группам, а разреза в вопросе нет. "
        "Добавьте разрез (например, «по странам»), и я покажу группы, где это выполняется.",
        "en": 'The condition "{metric} {condition}" is about groups, but the question has no '
        'breakdown. Add one (for example "by country") and I will list the groups where it holds.',
    },
    "compare_other_table": {
        "ru": "Условие «{metric} {condition}» нельзя применить: этот показатель считается по "
        "другой таблице. Спросите о нём отдельно.",
        "en": 'The condition "{metric} {condition}" cannot be applied: that metric is counted '
        "over another table. Ask about it on its own.",
    },
    "compare_unreachable": {
        "ru": "Условие «{condition}» нельзя применить к показателю «{metric}»: в каталоге нет "
        "связанного с ним числового столбца.",
        "en": 'The condition "{condition}" cannot be applied to "{metric}": the catalog has no '
        "numeric column related to it.",
    },
    "compare_ambiguous": {
        "ru": "Не понял, к чему относится условие «{condition}»: подходят {columns}. "
        "Назовите столбец в вопросе.",
        "en": 'I cannot tell what "{condition}" applies to: {columns} all fit. Name the column '
        "in the question.",
    },
    "refuse_word": {
        "ru": "В хранилище нет данных по теме «{word}», поэтому ответить не могу — придумывать "
        "цифры я не буду. Доступные темы: {topics}.",
        "en": 'The warehouse holds no data about "{word}", so I cannot answer; I will not '
        "invent numbers. Available topics: {topics}.",
    },
    "unaligned": {
        "ru": "Не могу ответить целиком: {parts}. Отвечать на часть вопроса не буду, чтобы "
        "не выдать меньше, чем спрошено. Задайте это отдельным вопросом.",
        "en": "I cannot answer the whole question: {parts}. I will not answer only part of "
        "it, so as not to give less than was asked. Ask it as a separate question.",
    },
    "unaligned_metric": {
        "ru": "{word} — вторая метрика, а посчитать в одном ответе я могу только {metric}",
        "en": "{word} is a second metric, and one answer here computes only {metric}",
    },
    "unaligned_breakdown": {
        "ru": "{word} — второй разрез, его нет в плане",
        "en": "{word} is a second breakdown the plan does not carry",
    },
    "unaligned_per": {
        "ru": "{word} — деление на единицу, которое здесь не строится",
        "en": "{word} divides by a unit that cannot be built here",
    },
    "unaligned_period": {
        "ru": "{word} — второй период, а ответ строится за один",
        "en": "{word} is a second period, and an answer here covers one",
    },
    "partial_period": {
        "ru": "Период {period} неполный: данные заканчиваются {end}, поэтому сравнение с целым "
        "периодом занижает его",
        "en": "The period {period} is incomplete: the data end on {end}, so compared with a whole "
        "period it reads low",
    },
    "tie": {
        "ru": "«{words}»: понял как «{chosen}» (не «{other}»)",
        "en": "«{words}»: read as «{chosen}» (not «{other}»)",
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
    "clarify_join": {
        "ru": "Таблицу «{table}» можно присоединить несколькими путями. Через какую таблицу идти?",
        "en": 'The table "{table}" can be reached several ways. Which way should I go?',
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
    "too_large": {
        "ru": "Результат запроса слишком большой, его чтение остановлено (предел — "
        "VITRINA_RESULT_MAX_BYTES). Сузьте период, добавьте фильтр или попросите итог "
        "вместо строк.",
        "en": "The query's result is too large and reading it was stopped (the limit is "
        "VITRINA_RESULT_MAX_BYTES). Narrow the period, add a filter or ask for a total "
        "instead of rows.",
    },
    "empty": {
        "ru": "Данных за период «{period}» нет.",
        "en": "There is no data for {period}.",
    },
    "empty_conditioned": {
        "ru": "За период «{period}» нет строк, где выполняется условие вопроса.",
        "en": "For {period}, no rows meet the question's condition.",
    },
    "data_range": {
        "ru": "Данные по теме «{topic}» есть с {start} по {end}.",
        "en": "Data on {topic} is available from {start} to {end}.",
    },
    "all_time": {"ru": "всё время", "en": "all time"},
}


text = Messages(TEXTS)
