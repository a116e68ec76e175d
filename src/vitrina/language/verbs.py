"""Event verbs: the words that say something happened, not what was counted.

"Сколько заказов совершили", "how many payments were made", "платежей провели": the verb
asks for no condition, only that the metric's events be counted. The neutral verbs below
are read as such wherever a question names a metric; a verb that tells one metric from
another ("купили треков" is the tracks sold, not the tracks in the store) is written per
metric in the catalog (`verbs:`), and `vitrina catalog init` drafts those from the table's
name (TABLE_VERBS). A verb that picks a date ("отгружено", "shipped") is a synonym of the
date column and stays one.

A metric's `verbs` are stems, matched as the catalog's synonyms are
(`language.text.stem_matches`); the neutral verbs are whole words.
"""

from __future__ import annotations

# happened / was done, in both languages: no metric of their own. Whole word forms, not
# stems: "совершеннолетних" (adults) and "проводки" (postings) say what is counted
NEUTRAL_VERBS: frozenset[str] = frozenset(
    {
        "совершили", "совершил", "совершила", "совершило", "совершено", "совершен",
        "совершена", "совершены", "совершались", "совершалось", "совершенных", "совершённых",
        "провели", "провел", "провёл", "провела", "провело", "проведено", "проведен",
        "проведён", "проведена", "проведены", "проведенных", "проведённых", "проводились",
        "сделали", "сделал", "сделала", "сделано", "сделан", "сделана", "сделаны",
        "сделанных", "случилось", "случились", "произошло", "произошли", "состоялось",
        "состоялись", "было", "были", "был", "была", "made", "happened", "occurred", "done",
        "took", "taken", "conducted", "carried", "performed", "were", "was",
    }
)  # fmt: skip

# a table's event, by a word of its name: the verbs `catalog init` drafts for its metrics
TABLE_VERBS: dict[str, tuple[str, ...]] = {
    "order": ("заказа", "оформ", "ordered", "placed"),
    "заказ": ("заказа", "оформ", "ordered", "placed"),
    "payment": ("оплат", "заплат", "paid"),
    "платеж": ("оплат", "заплат", "paid"),
    "sale": ("прода", "купи", "куплен", "покупа", "sold", "bought", "purchased"),
    "line": ("прода", "купи", "куплен", "покупа", "sold", "bought", "purchased"),
    "продаж": ("прода", "купи", "куплен", "покупа", "sold", "bought", "purchased"),
    "invoice": ("выстав", "issued", "billed"),
    "booking": ("заброн", "заказа", "booked"),
    "shipment": ("отгруж", "отправ", "shipped"),
    "return": ("вернул", "возвращ", "returned"),
    "visit": ("посет", "visited"),
    "registration": ("зарегистр", "registered", "signed"),
}


def draft_verbs(table_words: list[str]) -> list[str]:
    """The verbs a metric counting rows of a table named by `table_words` is drafted with:
    its event's verbs (the neutral ones are read without being listed).

    >>> draft_verbs(["invoice", "line"])[:3]
    ['выстав', 'issued', 'billed']
    """
    out: list[str] = []
    for word in table_words:
        for key, verbs in TABLE_VERBS.items():
            w = word.lower()
            if w.startswith(key) or (len(w) >= 4 and key.startswith(w)):
                out += [v for v in verbs if v not in out]
    return out
