"""Fixed reference data and weights of the demo warehouse.

Kept apart from the generator so that the catalog authors and the tests can read the
exact vocabularies (regions, categories, channels) without running a build.
"""

from __future__ import annotations

from datetime import date

START_DATE = date(2023, 1, 1)
END_DATE = date(2026, 11, 30)  # last day of every fact; fixed so the data never depends on today
CALENDAR_START = date(2023, 1, 1)
CALENDAR_END = date(2026, 12, 31)

# (region_id, Russian name, English name, federal district, weight B2C, weight B2B)
REGIONS: tuple[tuple[int, str, str, str, float, float], ...] = (
    (1, "Москва", "Moscow", "Центральный", 0.22, 0.35),
    (2, "Санкт-Петербург", "Saint Petersburg", "Северо-Западный", 0.12, 0.15),
    (3, "Московская область", "Moscow Oblast", "Центральный", 0.10, 0.08),
    (4, "Новосибирская область", "Novosibirsk Oblast", "Сибирский", 0.05, 0.04),
    (5, "Свердловская область", "Sverdlovsk Oblast", "Уральский", 0.06, 0.05),
    (6, "Республика Татарстан", "Republic of Tatarstan", "Приволжский", 0.06, 0.05),
    (7, "Краснодарский край", "Krasnodar Krai", "Южный", 0.08, 0.06),
    (8, "Нижегородская область", "Nizhny Novgorod Oblast", "Приволжский", 0.05, 0.04),
    (9, "Самарская область", "Samara Oblast", "Приволжский", 0.05, 0.04),
    (10, "Ростовская область", "Rostov Oblast", "Южный", 0.06, 0.04),
    (11, "Приморский край", "Primorsky Krai", "Дальневосточный", 0.04, 0.03),
    (12, "Калининградская область", "Kaliningrad Oblast", "Северо-Западный", 0.03, 0.02),
)

MONTH_NAMES_RU: tuple[str, ...] = (
    "Январь", "Февраль", "Март", "Апрель", "Май", "Июнь",
    "Июль", "Август", "Сентябрь", "Октябрь", "Ноябрь", "Декабрь",
)  # fmt: skip

CATEGORIES: tuple[str, ...] = (
    "groceries", "electronics", "travel", "restaurants", "fuel",
    "pharmacy", "clothing", "telecom", "marketplace",
)  # fmt: skip
ONLINE_CATEGORIES = frozenset({"travel", "telecom", "marketplace"})

# Share of merchants per category (how many shops exist), not of payments.
MERCHANT_SHARE: dict[str, float] = {
    "groceries": 0.25, "electronics": 0.08, "travel": 0.05, "restaurants": 0.22, "fuel": 0.09,
    "pharmacy": 0.10, "clothing": 0.12, "telecom": 0.04, "marketplace": 0.05,
}  # fmt: skip

# Share of payments per category, per segment, before seasonality.
PAYMENT_MIX: dict[str, dict[str, float]] = {
    "B2C": {
        "groceries": 0.30, "electronics": 0.05, "travel": 0.04, "restaurants": 0.14, "fuel": 0.08,
        "pharmacy": 0.07, "clothing": 0.07, "telecom": 0.06, "marketplace": 0.15,
    },
    "B2B": {
        "groceries": 0.08, "electronics": 0.14, "travel": 0.14, "restaurants": 0.10, "fuel": 0.16,
        "pharmacy": 0.02, "clothing": 0.02, "telecom": 0.14, "marketplace": 0.20,
    },
}  # fmt: skip

# Month (1..12) multipliers per category: summer travel, Black Friday, New Year.
CATEGORY_SEASON: dict[str, dict[int, float]] = {
    "travel": {1: 1.2, 5: 1.3, 6: 1.8, 7: 2.2, 8: 2.0, 12: 1.3},
    "electronics": {11: 1.4, 12: 1.9},
    "clothing": {3: 1.2, 9: 1.2, 12: 1.5},
    "marketplace": {11: 1.5, 12: 1.6},
    "restaurants": {6: 1.1, 7: 1.1, 8: 1.1, 12: 1.3},
    "fuel": {6: 1.15, 7: 1.15, 8: 1.15},
}
CATEGORY_WEEKEND: dict[str, float] = {
    "restaurants": 1.5, "groceries": 1.1, "travel": 1.2, "telecom": 0.7, "fuel": 1.1,
}  # fmt: skip

# Median ticket in RUB (B2C, 2023 prices); B2B tickets are B2B_TICKET_FACTOR times larger.
MEDIAN_TICKET: dict[str, float] = {
    "groceries": 900, "electronics": 9000, "travel": 14000, "restaurants": 1400, "fuel": 2600,
    "pharmacy": 800, "clothing": 3500, "telecom": 550, "marketplace": 2200,
}  # fmt: skip
B2B_TICKET_FACTOR = 14.0

# Daily volume of payments: month seasonality (December peak) and ISO weekday (1=Mon).
PAYMENT_MONTH_FACTOR = (0.88, 0.90, 0.97, 0.97, 1.00, 1.04, 1.07, 1.06, 0.98, 1.00, 1.07, 1.30)
PAYMENT_WEEKDAY_FACTOR = (0.97, 0.99, 1.00, 1.02, 1.12, 1.00, 0.86)
SIGNUP_MONTH_FACTOR = (0.85, 0.90, 1.00, 1.00, 0.95, 0.90, 0.90, 0.95, 1.10, 1.05, 1.05, 1.10)
SIGNUP_WEEKDAY_FACTOR = (1.05, 1.05, 1.05, 1.05, 1.00, 0.75, 0.70)

MERCHANT_BRANDS: dict[str, tuple[str, ...]] = {
    "groceries": ("Пятёрочка", "Перекрёсток", "Магнит", "ВкусВилл", "Лента", "Азбука вкуса",
                  "Дикси", "Ашан", "Монетка", "Верный"),
    "electronics": ("М.Видео", "DNS", "Эльдорадо", "Ситилинк", "re:Store", "Технопарк"),
    "travel": ("Аэрофлот", "РЖД", "S7 Airlines", "Туту.ру", "Островок", "Победа",
               "Яндекс Путешествия"),
    "restaurants": ("Шоколадница", "Теремок", "Вкусно — и точка", "Додо Пицца", "Кофемания",
                    "Якитория", "Суши Wok", "Burger King", "Cofix"),
    "fuel": ("Лукойл", "Роснефть", "Газпромнефть", "Татнефть", "Teboil"),
    "pharmacy": ("Ригла", "Аптека 36,6", "Горздрав", "Столички", "Планета Здоровья", "Еаптека"),
    "clothing": ("Gloria Jeans", "Спортмастер", "Zarina", "Befree", "Love Republic", "O'STIN",
                 "Familia"),
    "telecom": ("МТС", "Билайн", "МегаФон", "Tele2", "Ростелеком"),
    "marketplace": ("Ozon", "Wildberries", "Яндекс Маркет", "AliExpress", "Мегамаркет", "Авито"),
}  # fmt: skip

# Male surnames; the female form is derived by female_surname().
SURNAMES: tuple[str, ...] = (
    "Иванов", "Смирнов", "Кузнецов", "Попов", "Васильев", "Петров", "Соколов", "Михайлов",
    "Новиков", "Фёдоров", "Морозов", "Волков", "Алексеев", "Лебедев", "Семёнов", "Егоров",
    "Павлов", "Козлов", "Степанов", "Николаев", "Орлов", "Андреев", "Макаров", "Никитин",
    "Захаров", "Зайцев", "Соловьёв", "Борисов", "Яковлев", "Григорьев", "Романов", "Воробьёв",
    "Сергеев", "Кузьмин", "Фролов", "Александров", "Дмитриев", "Королёв", "Гусев", "Киселёв",
    "Ильин", "Максимов", "Поляков", "Сорокин", "Виноградов", "Ковалёв", "Белов", "Медведев",
    "Антонов", "Тарасов", "Жуков", "Баранов", "Филиппов", "Комаров", "Давыдов", "Беляев",
    "Герасимов", "Богданов", "Осипов", "Сидоров", "Матвеев", "Титов", "Марков", "Миронов",
    "Крылов", "Куликов", "Карпов", "Власов", "Мельников", "Денисов", "Гаврилов", "Тихонов",
    "Казаков", "Афанасьев", "Данилов", "Савельев", "Тимофеев", "Фомин", "Чернов", "Абрамов",
    "Мартынов", "Ефимов", "Федотов", "Щербаков", "Назаров", "Калинин", "Исаев", "Чернышёв",
    "Быков", "Маслов", "Родионов", "Коновалов", "Лазарев", "Воронин", "Климов", "Филатов",
    "Пономарёв", "Голубев", "Кудрявцев", "Прохоров", "Наумов", "Потапов", "Журавлёв", "Овчинников",
    "Трофимов", "Леонов", "Соболев", "Ермаков", "Колесников", "Гончаров", "Емельянов", "Никифоров",
    "Грачёв", "Котов", "Гришин", "Ефремов", "Архипов", "Громов", "Кириллов", "Малышев",
    "Панов", "Моисеев", "Румянцев", "Акимов", "Кондратьев", "Бирюков", "Горбунов", "Анисимов",
    "Ерёмин", "Тихомиров", "Галкин", "Лукьянов", "Михеев", "Скворцов", "Юдин", "Белоусов",
    "Нестеров", "Симонов", "Прокофьев", "Харитонов", "Князев", "Цветков", "Левин", "Митрофанов",
    "Воронцов", "Аксёнов", "Софронов", "Мальцев", "Логинов", "Горшков", "Савин", "Краснов",
    "Майоров", "Демидов", "Елисеев", "Рыбаков", "Сафонов", "Плотников", "Демин", "Хохлов",
    "Жданов", "Руденко", "Шевченко", "Ким", "Хабибуллин", "Галиев", "Сафин", "Ахметов",
    "Гарипов", "Валиев", "Зарипов", "Мухаметов", "Островский", "Вишневский", "Ковальский",
    "Полянский",
)  # fmt: skip
INITIALS_MALE = "АААААВВВДДДЕЕИИИККМММНОППРРССССТЮЯ"
INITIALS_FEMALE = "АААААВВВГДЕЕЕИИКЛЛЛМММННОПРСССТЮЯ"
PATRONYMIC_INITIALS = "АААААВВВГДДЕЕИИИККЛММММНОППРРССССТЮЯ"

COMPANY_PREFIXES: tuple[str, ...] = (
    "Альфа", "Вектор", "Гранит", "Север", "Орион", "Сфера", "Прайм", "Меридиан", "Атлант",
    "Восток", "Гарант", "Сибирь", "Волга", "Нева", "Урал", "Кама", "Дон", "Байкал",
    "Эталон", "Импульс", "Форвард", "Горизонт", "Профи", "Стандарт", "Авангард", "Феникс",
)  # fmt: skip
INDUSTRIES: tuple[str, ...] = (
    "retail",
    "logistics",
    "it",
    "manufacturing",
    "horeca",
    "construction",
)
INDUSTRY_WEIGHTS = (0.25, 0.15, 0.15, 0.15, 0.15, 0.15)
INDUSTRY_SUFFIXES: dict[str, tuple[str, ...]] = {
    "retail": ("Трейд", "Маркет", "Торг", "Ритейл"),
    "logistics": ("Логистик", "Транс", "Экспресс", "Карго"),
    "it": ("Софт", "Тех", "Дата", "Лаб", "Системс"),
    "manufacturing": ("Пром", "Завод", "Маш", "Металл"),
    "horeca": ("Фуд", "Кейтеринг", "Сервис", "Гастро"),
    "construction": ("Строй", "Девелопмент", "СтройИнвест", "Монтаж"),
}


def female_surname(surname: str) -> str:
    """Russian female form: Иванов -> Иванова, Островский -> Островская, Ким -> Ким."""
    if surname.endswith(("ский", "цкий")):
        return surname[:-2] + "ая"
    if surname.endswith(("ов", "ев", "ёв", "ин", "ын")):
        return surname + "а"
    return surname
